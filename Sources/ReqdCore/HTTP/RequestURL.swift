/// URL handling: checks at registration, so a job never starts with a URL the executor cannot
/// send, and the parts that name a server.
public enum RequestURL {
    /// The part of a URL that names its server: scheme, host and port, as written.
    public static func origin(_ url: String) -> Substring {
        guard let separator = url.firstRange(of: "://") else { return url[...] }
        let rest = url[separator.upperBound...]
        let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        return url[..<end]
    }

    /// Accepts an absolute `http` or `https` URL with a host and an optional numeric port, and no
    /// credentials: `user:password@` would not be sent (the request would go out without them),
    /// and `status`, `list` and events would show the password, so it is refused, without echoing
    /// the URL.
    static func validate(_ url: String) throws(SchedulerError) {
        func refuse(_ why: String) -> SchedulerError {
            SchedulerError(.badURL, "'\(url.prefix(200))' is not a usable URL: \(why)")
        }
        guard url.utf8.count <= 8192 else { throw SchedulerError(.badURL, "the URL is longer than 8192 bytes") }
        // Credentials first: every later refusal echoes the URL.
        let server = (url.firstRange(of: "://").map { url[$0.upperBound...] } ?? url[...]).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if server.contains("@") {
            throw SchedulerError(
                .badURL, "the URL carries credentials (user:password@), which reqd does not send or keep; give them in an Authorization header")
        }
        guard let separator = url.firstRange(of: "://") else { throw refuse("it has no scheme; give http:// or https://") }
        let scheme = url[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw refuse("only http and https are supported, not '\(scheme.prefix(32))'")
        }
        guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw refuse("it contains spaces or control characters")
        }
        let rest = url[separator.upperBound...]
        let (host, port) = try authority(of: rest, refuse)
        guard !host.isEmpty, host != "[]" else { throw refuse("it has no host") }
        if let port {
            guard let number = Int(port), (1...65535).contains(number) else { throw refuse("the port is not 1 to 65535") }
        }
    }

    /// The host a URL names, without brackets around an IPv6 literal; `url` must have passed `validate`.
    public static func host(_ url: String) -> Substring {
        guard let separator = url.firstRange(of: "://"),
            let host = try? authority(of: url[separator.upperBound...], { _ in SchedulerError(.badURL, "") }).host
        else { return "" }
        return host.hasPrefix("[") ? host.dropFirst().dropLast() : host
    }

    /// The target a URL's requests count against (`TargetRules`): `host:port` in lower case, with
    /// the scheme's port (80, 443) when none is written; an IPv6 literal keeps its brackets. `url`
    /// must have passed `validate`.
    ///
    /// A name's final dot goes (`api.example.` is `api.example`), so that the fully qualified
    /// spelling cannot escape the host's limits and breaker.
    public static func target(_ url: String) -> String {
        guard let separator = url.firstRange(of: "://"),
            let (host, port) = try? authority(of: url[separator.upperBound...], { _ in SchedulerError(.badURL, "") })
        else { return "" }
        let scheme = url[..<separator.lowerBound].lowercased()
        var name = host.lowercased()
        if name.count > 1, name.hasSuffix(".") { name.removeLast() }
        return name + ":" + (port.flatMap { Int($0) }.map(String.init) ?? (scheme == "https" ? "443" : "80"))
    }

    /// The host (IPv6 literals keep their brackets) and the port text of what follows `://`.
    private static func authority(
        of rest: Substring, _ refuse: (String) -> SchedulerError
    ) throws(SchedulerError) -> (host: Substring, port: Substring?) {
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = authority
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw refuse("an IPv6 host lacks its ']'") }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw refuse("unexpected text after the IPv6 host") }
                port = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        return (host, port)
    }

    /// The URL as the dedupe fingerprint sees it: scheme and host in lower case, no default port,
    /// an empty path as `/`, query parameters sorted, no fragment (it never reaches the server).
    /// `url` must have passed `validate`.
    static func normalized(_ url: String) -> String {
        guard let separator = url.firstRange(of: "://") else { return url }
        let scheme = url[..<separator.lowerBound].lowercased()
        var rest = url[separator.upperBound...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        var userinfo: Substring = ""
        if let at = authority.lastIndex(of: "@") {
            userinfo = authority[...at]
            authority = authority[authority.index(after: at)...]
        }
        var hostPort = authority.lowercased()
        for defaultPort in [("http", ":80"), ("https", ":443")] where scheme == defaultPort.0 && hostPort.hasSuffix(defaultPort.1) {
            hostPort.removeLast(defaultPort.1.count)
        }
        let pathAndQuery = rest[authorityEnd...]
        let queryStart = pathAndQuery.firstIndex(of: "?")
        let path = queryStart.map { pathAndQuery[..<$0] } ?? pathAndQuery
        var normalized = scheme + "://" + userinfo + hostPort + (path.isEmpty ? "/" : path)
        if let queryStart {
            let parameters = pathAndQuery[pathAndQuery.index(after: queryStart)...].split(separator: "&", omittingEmptySubsequences: true)
            if !parameters.isEmpty {
                let sorted = parameters.enumerated().sorted { lhs, rhs in
                    let (a, b) = (Self.name(lhs.element), Self.name(rhs.element))
                    return a != b ? a < b : lhs.offset < rhs.offset
                }
                normalized += "?" + sorted.map(\.element).joined(separator: "&")
            }
        }
        return normalized
    }

    /// A query parameter's name: the part before `=`.
    private static func name(_ parameter: Substring) -> Substring {
        parameter.firstIndex(of: "=").map { parameter[..<$0] } ?? parameter
    }
}
