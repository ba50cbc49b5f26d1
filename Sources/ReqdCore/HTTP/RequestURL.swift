/// URL handling: checks at registration, so a job never starts with a URL the executor cannot
/// send, and the parts that name a server.
public enum RequestURL {
    /// The part of a URL that names its server: scheme, host and port, as written.
    public static func origin(_ url: String) -> Substring {
        guard let parts = Parts(url) else { return url[...] }
        return url[..<parts.authorityEnd]
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
        let parts = Parts(url)
        // Credentials first: every later refusal echoes the URL.
        let credentials =
            parts?.hasUserinfo
            ?? url.utf8[..<Parts.authorityEnd(url.utf8, from: url.utf8.startIndex)].contains(UInt8(ascii: "@"))
        if credentials {
            throw SchedulerError(
                .badURL, "the URL carries credentials (user:password@), which reqd does not send or keep; give them in an Authorization header")
        }
        guard let parts else { throw refuse("it has no scheme; give http:// or https://") }
        let scheme = url[..<parts.schemeEnd].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw refuse("only http and https are supported, not '\(scheme.prefix(32))'")
        }
        // A byte at or below 0x20 or equal to 0x7F is always that ASCII character in UTF-8.
        guard !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw refuse("it contains spaces or control characters")
        }
        let (host, port) = try hostAndPort(url, from: parts.hostStart, to: parts.authorityEnd, refuse)
        guard !host.isEmpty, host != "[]" else { throw refuse("it has no host") }
        if let port {
            guard let number = Int(port), (1...65535).contains(number) else { throw refuse("the port is not 1 to 65535") }
        }
    }

    /// The host a URL names, without brackets around an IPv6 literal; `url` must have passed `validate`.
    public static func host(_ url: String) -> Substring {
        guard let parts = Parts(url),
            let host = try? hostAndPort(url, from: parts.hostStart, to: parts.authorityEnd, { _ in SchedulerError(.badURL, "") }).host
        else { return "" }
        return isBracketed(host) ? host[host.utf8.index(after: host.startIndex)..<host.utf8.index(before: host.endIndex)] : host
    }

    /// Whether a host from `hostAndPort` is an IPv6 literal in brackets (it then ends in `]`).
    private static func isBracketed(_ host: Substring) -> Bool {
        host.utf8.first == UInt8(ascii: "[") && host.utf8.count >= 2
    }

    /// The target a URL's requests count against (`TargetRules`): `host:port` in lower case, with
    /// the scheme's port (80, 443) when none is written. `url` must have passed `validate`.
    ///
    /// Each host has one spelling here, so that another cannot escape the host's limits and
    /// breaker: a name loses its final dot (`api.example.` is `api.example`), and an IP literal
    /// is written as `IPAddress.canonical` gives it, an IPv6 one in brackets (`[0:0::1]` is
    /// `[::1]`, `[::ffff:127.0.0.1]` is `127.0.0.1`).
    public static func target(_ url: String) -> String {
        guard let parts = Parts(url),
            let (host, port) = try? hostAndPort(url, from: parts.hostStart, to: parts.authorityEnd, { _ in SchedulerError(.badURL, "") })
        else { return "" }
        let portText = port.flatMap { Int($0) }.map(String.init) ?? (isHTTPS(url[..<parts.schemeEnd]) ? "443" : "80")
        return canonicalHost(host) + ":" + portText
    }

    /// A host as `target` spells it. An IPv6 literal's zone (`%25eth0`) is kept, in lower case:
    /// the same address on two links is two targets.
    static func canonicalHost(_ host: Substring) -> String {
        if isBracketed(host) {
            let inside = host[host.utf8.index(after: host.startIndex)..<host.utf8.index(before: host.endIndex)]
            if let address = IPAddress(inside) {
                let zone = inside.utf8.firstIndex(of: UInt8(ascii: "%")).map { inside[$0...].lowercased() } ?? ""
                return address.isV4 && zone.isEmpty ? address.canonical : "[" + address.canonical + zone + "]"
            }
        }
        var name = host.lowercased()
        if name.utf8.count > 1, name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// Whether a scheme is `https`, in any case.
    private static func isHTTPS(_ scheme: Substring) -> Bool {
        scheme.utf8.count == 5 && scheme.utf8.elementsEqual("https".utf8) { $0 | 0x20 == $1 }
    }

    /// The URL as the dedupe fingerprint sees it: scheme and host in lower case, no default port,
    /// an empty path as `/`, query parameters sorted, no fragment (it never reaches the server).
    /// `url` must have passed `validate`.
    static func normalized(_ url: String) -> String {
        guard let parts = Parts(url) else { return url }
        let bytes = url.utf8
        let (hostStart, authorityEnd) = (parts.hostStart, parts.authorityEnd)
        let end = bytes[authorityEnd...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 1)
        appendLowercased(url[..<parts.schemeEnd], to: &out)
        let schemeLength = out.count
        out += bytes[parts.schemeEnd..<hostStart]
        let hostPortStart = out.count
        appendLowercased(url[hostStart..<authorityEnd], to: &out)
        let defaultPort = out.prefix(schemeLength).elementsEqual("http".utf8) ? ":80" : out.prefix(schemeLength).elementsEqual("https".utf8) ? ":443" : ""
        if !defaultPort.isEmpty, out.count - hostPortStart >= defaultPort.utf8.count, out.suffix(defaultPort.utf8.count).elementsEqual(defaultPort.utf8) {
            out.removeLast(defaultPort.utf8.count)
        }
        let queryStart = bytes[authorityEnd..<end].firstIndex(of: UInt8(ascii: "?"))
        let pathEnd = queryStart ?? end
        if authorityEnd == pathEnd { out.append(UInt8(ascii: "/")) } else { out += bytes[authorityEnd..<pathEnd] }
        if let queryStart {
            let parameters = bytes[bytes.index(after: queryStart)..<end].split(separator: UInt8(ascii: "&"))
            if parameters.count == 1 {
                out.append(UInt8(ascii: "?"))
                out += parameters[0]
            } else if !parameters.isEmpty {
                let sorted = parameters.map { Substring($0) }.enumerated().sorted { lhs, rhs in
                    let (a, b) = (Self.name(lhs.element), Self.name(rhs.element))
                    return a != b ? a < b : lhs.offset < rhs.offset
                }
                out += ("?" + sorted.map(\.element).joined(separator: "&")).utf8
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `text` in lower case: byte by byte when it is ASCII, as `lowercased()` does otherwise.
    private static func appendLowercased(_ text: Substring, to out: inout [UInt8]) {
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return out += text.lowercased().utf8 }
        for byte in text.utf8 { out.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) }
    }

    /// A query parameter's name: the part before `=`.
    private static func name(_ parameter: Substring) -> Substring {
        parameter.firstIndex(of: "=").map { parameter[..<$0] } ?? parameter
    }
}
