extension RequestURL {
    /// Where a URL's parts begin and end, found by one pass over its UTF-8 bytes.
    ///
    /// The delimiters (`://`, `@`, `/`, `?`, `#`, `:`, `[`, `]`) are ASCII, so a byte is enough to
    /// find them, and the indices are valid `String` indices. This runs for every registration and
    /// every attempt; `Character`-level searches cost a fifth of the busiest threads' time.
    struct Parts {
        /// Where `://` begins: the scheme is everything before it.
        let schemeEnd: String.Index
        /// After the userinfo's `@`, or after `://` when there is none.
        let hostStart: String.Index
        /// The first `/`, `?` or `#` after `://`, or the end.
        let authorityEnd: String.Index
        /// The first `@` after `://` and before `authorityEnd`, if any.
        let hasUserinfo: Bool

        /// The parts of `url`; nil when it has no `://`.
        init?(_ url: String) {
            guard let separator = Self.separator(url.utf8) else { return nil }
            schemeEnd = separator
            let bytes = url.utf8
            let afterSeparator = bytes.index(separator, offsetBy: 3)
            let end = Self.authorityEnd(bytes, from: afterSeparator)
            authorityEnd = end
            let at = bytes[afterSeparator..<end].lastIndex(of: UInt8(ascii: "@"))
            hasUserinfo = at != nil
            hostStart = at.map { bytes.index(after: $0) } ?? afterSeparator
        }

        /// The index of the first `://` in `bytes`.
        static func separator(_ bytes: String.UTF8View) -> String.Index? {
            var index = bytes.startIndex
            while let colon = bytes[index...].firstIndex(of: UInt8(ascii: ":")) {
                var next = bytes.index(after: colon)
                guard next != bytes.endIndex, bytes[next] == UInt8(ascii: "/") else {
                    index = next
                    continue
                }
                next = bytes.index(after: next)
                if next != bytes.endIndex, bytes[next] == UInt8(ascii: "/") { return colon }
                index = next
            }
            return nil
        }

        /// The first `/`, `?` or `#` at or after `start`, or the end.
        static func authorityEnd(_ bytes: String.UTF8View, from start: String.Index) -> String.Index {
            bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
                ?? bytes.endIndex
        }
    }

    /// The host (IPv6 literals keep their brackets) and port text of `url[hostStart..<end]`.
    ///
    /// - Throws: through `refuse`, an IPv6 host without its `]` or with text after it that is not
    ///   `:PORT`.
    static func hostAndPort(
        _ url: String, from start: String.Index, to end: String.Index, _ refuse: (String) -> SchedulerError
    ) throws(SchedulerError) -> (host: Substring, port: Substring?) {
        let bytes = url.utf8[start..<end]
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { throw refuse("an IPv6 host lacks its ']'") }
            let afterClose = url.utf8.index(after: close)
            guard afterClose != end else { return (url[start..<afterClose], nil) }
            guard url.utf8[afterClose] == UInt8(ascii: ":") else { throw refuse("unexpected text after the IPv6 host") }
            return (url[start..<afterClose], url[url.utf8.index(after: afterClose)..<end])
        }
        guard let colon = bytes.lastIndex(of: UInt8(ascii: ":")) else { return (url[start..<end], nil) }
        return (url[start..<colon], url[url.utf8.index(after: colon)..<end])
    }
}
