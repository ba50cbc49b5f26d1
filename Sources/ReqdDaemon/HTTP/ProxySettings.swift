import Foundation
import ReqdCore

/// The proxies of the daemon's environment, read as curl reads them: `http_proxy` (or
/// `HTTP_PROXY`) for `http` URLs, `https_proxy` (or `HTTPS_PROXY`) for `https` URLs, and
/// `no_proxy` (or `NO_PROXY`) for the hosts that go direct. The lowercase name wins when both are
/// set. Every request through a proxy is a `CONNECT` tunnel, for `http` URLs too.
public struct ProxySettings: Sendable, Hashable {
    /// One HTTP proxy: where it listens and, when its URL had them, the credentials it wants.
    public struct Proxy: Sendable, Hashable, CustomStringConvertible {
        /// The proxy's host name or address (an IPv6 address without brackets).
        public var host: String
        /// The proxy's port.
        public var port: Int
        /// The user of `Proxy-Authorization`, percent-decoded from the URL.
        public var username: String?
        /// Its password; never in `description`.
        public var password: String?

        /// `host:port`, never the credentials.
        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// The proxy for `http` URLs.
    public var http: Proxy?
    /// The proxy for `https` URLs.
    public var https: Proxy?
    /// The `no_proxy` entries, lower case, without a leading `.` or `*.`; `*` alone sends every
    /// request direct.
    public var direct: [String] = []

    /// No proxies.
    public init() {}

    /// Reads the proxy variables of `environment`; a proxy URL reqd cannot use is an error naming
    /// its variable, never repeating credentials.
    public init(environment: [String: String]) throws(DaemonError) {
        /// The lowercase variable when it is set (empty included: curl then uses no proxy), else the uppercase one.
        func value(_ name: String) -> (name: String, text: String)? {
            guard let candidate = [name.lowercased(), name.uppercased()].first(where: { environment[$0] != nil }),
                let text = environment[candidate]?.trimmingCharacters(in: .whitespaces), !text.isEmpty
            else { return nil }
            return (candidate, text)
        }
        if let (name, text) = value("http_proxy") { http = try Self.proxy(text, variable: name) }
        if let (name, text) = value("https_proxy") { https = try Self.proxy(text, variable: name) }
        if let (_, text) = value("no_proxy") {
            direct = text.split(whereSeparator: { $0 == "," || $0 == " " }).map { entry in
                var entry = entry.lowercased()[...]
                if entry.hasPrefix("*.") { entry = entry.dropFirst(2) } else if entry.hasPrefix(".") { entry = entry.dropFirst() }
                return String(entry)
            }.filter { !$0.isEmpty }
        }
    }

    /// Whether any proxy is set.
    public var isActive: Bool { http != nil || https != nil }

    /// The proxy a request to `url` goes through, or nil when it goes direct.
    public func proxy(for url: String) -> Proxy? {
        let isHTTPS = url.prefix(8).lowercased() == "https://"
        guard let proxy = isHTTPS ? https : http else { return nil }
        var host = RequestURL.host(url).lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        let port = Self.port(of: url) ?? (isHTTPS ? 443 : 80)
        return direct.contains { Self.matches($0, host: host, port: port) } ? nil : proxy
    }

    /// Whether the `no_proxy` entry covers `host`: every host for `*`; an address or CIDR range
    /// for an address; otherwise the name itself and every name under it. An entry may end in
    /// `:PORT`, which must then match too.
    static func matches(_ entry: String, host: String, port: Int) -> Bool {
        if entry == "*" { return true }
        var name = entry[...]
        if name.hasPrefix("["), let close = name.firstIndex(of: "]") {
            let after = name[name.index(after: close)...]
            if after.hasPrefix(":") { guard Int(after.dropFirst()) == port else { return false } }
            name = name[name.index(after: name.startIndex)..<close]
        } else if name.count(where: { $0 == ":" }) == 1, let colon = name.firstIndex(of: ":") {
            guard Int(name[name.index(after: colon)...]) == port else { return false }
            name = name[..<colon]
        }
        if let address = IPAddress(host[...]) {
            return TargetPolicy.Range(String(name))?.contains(address) ?? false
        }
        return host == name || host.hasSuffix("." + name)
    }

    /// The port of a URL, when it names one.
    private static func port(of url: String) -> Int? {
        let origin = RequestURL.origin(url)
        guard let colon = origin.lastIndex(of: ":"), !origin[origin.index(after: colon)...].contains("]") else { return nil }
        return Int(origin[origin.index(after: colon)...])
    }

    /// Parses `http://[user:password@]host[:port][/]`, or the same without the scheme; the port
    /// defaults to 1080, as in curl.
    private static func proxy(_ text: String, variable: String) throws(DaemonError) -> Proxy {
        func refuse(_ why: String) -> DaemonError {
            DaemonError(.invalidSetting, "environment \(variable): \(why)", key: variable)
        }
        var rest = text[...]
        if let separator = text.firstRange(of: "://") {
            let scheme = text[..<separator.lowerBound].lowercased()
            guard scheme == "http" else {
                throw refuse("only http:// proxies are supported, not \(scheme.prefix(16))://")
            }
            rest = text[separator.upperBound...]
        }
        var authority = rest.prefix { $0 != "/" }
        var username: String?
        var password: String?
        if let at = authority.lastIndex(of: "@") {
            let credentials = authority[..<at]
            let parts = credentials.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            username = parts[0].removingPercentEncoding ?? String(parts[0])
            password = parts.count == 2 ? parts[1].removingPercentEncoding ?? String(parts[1]) : nil
            authority = authority[authority.index(after: at)...]
        }
        var host = authority
        var port = 1080
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw refuse("the IPv6 host lacks its ']'") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let number = Int(after.dropFirst()) else { throw refuse("the port is not a number") }
                port = number
            }
        } else if let colon = authority.lastIndex(of: ":") {
            guard let number = Int(authority[authority.index(after: colon)...]) else { throw refuse("the port is not a number") }
            port = number
            host = authority[..<colon]
        }
        guard !host.isEmpty else { throw refuse("the proxy URL has no host") }
        guard (1...65535).contains(port) else { throw refuse("the port is not 1 to 65535") }
        return Proxy(host: String(host), port: port, username: username, password: password)
    }
}
