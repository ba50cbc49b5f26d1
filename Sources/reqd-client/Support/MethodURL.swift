import ArgumentParser

/// A request's `[METHOD] URL`, in the one form every command takes it: two words
/// (`POST https://…`), one quoted word (`'POST https://…'`), or the URL alone.
///
/// Without a method a request is sent as curl would send it: `GET`, or `POST` when it has a body.
/// Reports (`--on-success`, `--on-failure`, `--on-complete`) always have one, so they are `POST`.
struct MethodURL: Equatable {
    /// The method as given; nil for the default.
    var method: String?
    var url: String

    /// Every `[METHOD] URL` in `words`, in order: a word of letters (and `-`, as in `M-SEARCH`)
    /// is a method and belongs to the URL after it. Nil when a method has no URL or two methods meet.
    static func all(in words: [String]) -> [MethodURL]? {
        var result: [MethodURL] = []
        var method: String?
        for token in words.flatMap({ $0.split(whereSeparator: \.isWhitespace) }) {
            if token.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") }) {
                guard method == nil else { return nil }
                method = String(token)
            } else {
                result.append(MethodURL(method: method, url: String(token)))
                method = nil
            }
        }
        return method == nil ? result : nil
    }

    /// The one `[METHOD] URL` of an option such as `--on-expire`; a `ValidationError` names `option`.
    static func one(_ words: [String], option: String) throws -> MethodURL {
        guard let all = all(in: words), all.count == 1 else {
            let given = words.flatMap { $0.split(whereSeparator: \.isWhitespace) }.map { Self.shown(String($0)) }
            throw ValidationError("\(option) takes [METHOD] URL, such as \(option) POST https://example.org/hook; got '\(given.joined(separator: " "))'")
        }
        return all[0]
    }

    /// A word as an error shows it: a URL's `user:password@` as `…@`, since a message must not
    /// carry a password.
    static func shown(_ word: String) -> String {
        let start = word.range(of: "://")?.upperBound ?? word.startIndex
        let authority = word[start...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return word }
        return String(word[..<start]) + "…" + String(word[at...])
    }

    /// This request with the method of `-X`, when given; a different method before the URL too is
    /// a `ValidationError`.
    func with(method explicit: String?) throws -> MethodURL {
        guard let explicit else { return self }
        if let method, method.uppercased() != explicit.uppercased() { throw ValidationError("the method is given twice: -X \(explicit) and \(method)") }
        return MethodURL(method: explicit, url: url)
    }

    /// The method to send: the one given, else `POST` with a body and `GET` without.
    func method(hasBody: Bool) -> String { method ?? (hasBody ? "POST" : "GET") }
}
