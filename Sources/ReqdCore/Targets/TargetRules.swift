/// The `[targets."HOST"]` tables of the configuration, and which one applies to a request.
///
/// A table is named `"HOST:PORT"`, `"HOST"` or `"*.example.com"` (any name below it); the most
/// specific that matches a request's host and port applies, in that order, a longer wildcard
/// before a shorter one, and `[targets.default]` fills whatever it leaves out. Limits apply per
/// target, that is per host and port: under `"*.example.com"`, `a.example.com` and
/// `b.example.com` each get the table's rate.
public struct TargetRules: Sendable, Hashable {
    /// The tables by name, spelled as `RequestURL.target` spells a target (`api.example.com:8443`,
    /// `[::1]`, `*.example.com`): two spellings of one target are one table, the later key winning
    /// (a configuration file may not spell one target twice: `ConfigurationLoader` refuses it).
    public private(set) var tables: [String: TargetLimits] = [:]
    /// `[targets.default]`.
    public var defaults = TargetLimits() { didSet { noteBreakers() } }
    /// The concurrency of a target no table gives one: `http.max_connections_per_host`.
    public var defaultConcurrency = 64
    /// The CA bundle of a target no table gives one: `http.ca_file`.
    public var defaultTLS = TargetTLS()

    /// No tables: no target is limited beyond `defaultConcurrency`.
    public init() {}

    /// Changes the table `name` (`default` for `[targets.default]`); `bad_field` for a name that
    /// is none of the three forms.
    public mutating func update(_ name: String, _ change: (inout TargetLimits) -> Void) throws(SchedulerError) {
        if name == "default" {
            change(&defaults)
            return
        }
        guard let normalized = Self.normalizedName(name) else {
            throw SchedulerError(
                .badField,
                "'\(name.prefix(300))' is not a target: give HOST, HOST:PORT or *.DOMAIN (an IPv6 address in brackets)")
        }
        change(&tables[normalized, default: TargetLimits()])
        noteBreakers()
    }

    /// Changes every table, `[targets.default]` first (named `default`).
    public mutating func updateAll<Failure: Error>(_ change: (String, inout TargetLimits) throws(Failure) -> Void) throws(Failure) {
        try change("default", &defaults)
        for name in tables.keys.sorted() {
            guard var limits = tables[name] else { continue }
            try change(name, &limits)
            tables[name] = limits
        }
        noteBreakers()
    }

    /// A target's limits with every key filled, and the table they come from.
    public struct Resolved: Sendable, Hashable {
        public var rate: TargetRate?
        public var burst: Int
        public var concurrency: Int
        /// The table's name in its canonical spelling (`TargetRules.normalizedName`), or `default`.
        public var table: String
        /// Whether requests ask for a compressed answer.
        public var decompress: Bool
        /// The circuit breaker; nil for none.
        public var breaker: BreakerSettings?
        /// The secrets requests are signed with; nil for unsigned requests.
        public var signing: SigningSecrets?
        /// A private CA or a client certificate; nil for the system's roots alone.
        public var tls: TargetTLS?

        public init(
            rate: TargetRate?, burst: Int, concurrency: Int, table: String, decompress: Bool = true, breaker: BreakerSettings? = nil,
            signing: SigningSecrets? = nil, tls: TargetTLS? = nil
        ) {
            self.rate = rate
            self.burst = burst
            self.concurrency = concurrency
            self.table = table
            self.decompress = decompress
            self.breaker = breaker
            self.signing = signing
            self.tls = tls
        }
    }

    /// The limits for requests to `target` (`host:port`, as `RequestURL.target` gives it).
    public func limits(for target: some StringProtocol) -> Resolved {
        let (name, limits) = match(String(target))
        let filled = limits.over(defaults)
        let tls = defaultTLS.isEmpty && filled.tls.isEmpty ? nil : filled.tls.over(defaultTLS)
        return Resolved(
            rate: filled.rate, burst: filled.burst ?? 1, concurrency: filled.concurrency ?? defaultConcurrency, table: name,
            decompress: filled.decompress ?? true, breaker: filled.breaker, signing: filled.signing,
            tls: tls?.isEmpty == false ? tls : nil)
    }

    /// Whether any table turns a circuit breaker on: without one, the ends of requests need not be
    /// matched to a table. Kept as the tables change, since every request's end asks.
    public private(set) var hasBreakers = false

    private mutating func noteBreakers() {
        hasBreakers = defaults.breaker != nil || tables.values.contains { $0.breaker != nil }
    }

    private func match(_ target: String) -> (String, TargetLimits) {
        if tables.isEmpty { return ("default", TargetLimits()) }
        if let limits = tables[target] { return (target, limits) }
        let host = String(Self.host(of: target))
        if let limits = tables[host] { return (host, limits) }
        var suffix = Substring(host)
        while let dot = suffix.firstIndex(of: ".") {
            suffix = suffix[suffix.index(after: dot)...]
            let name = "*." + suffix
            if let limits = tables[name] { return (name, limits) }
        }
        return ("default", TargetLimits())
    }

    /// The host part of `host:port`.
    private static func host(of target: String) -> Substring {
        guard let colon = target.lastIndex(of: ":"), !target.hasSuffix("]") else { return target[...] }
        return target[..<colon]
    }

    /// A table's name as `RequestURL.target` spells a target (lower case, IP literals in their
    /// canonical form, the port without leading zeros), or nil when it is not `HOST`,
    /// `HOST:PORT` or `*.DOMAIN`.
    public static func normalizedName(_ name: String) -> String? {
        let lower = name.lowercased()
        if lower.hasPrefix("*.") {
            return isHostName(lower.dropFirst(2)) ? lower : nil
        }
        var host = Substring(lower)
        var port: Substring?
        if lower.hasPrefix("[") {
            guard let close = lower.firstIndex(of: "]"), IPAddress(lower[lower.index(after: lower.startIndex)..<close]) != nil
            else { return nil }
            host = lower[...close]
            let rest = lower[lower.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                port = rest.dropFirst()
            }
        } else {
            if let colon = lower.lastIndex(of: ":") {
                port = lower[lower.index(after: colon)...]
                host = lower[..<colon]
            }
            guard isHostName(host) || IPAddress(host) != nil else { return nil }
        }
        guard let port else { return RequestURL.canonicalHost(host) }
        guard isPort(port), let number = Int(port) else { return nil }
        return RequestURL.canonicalHost(host) + ":" + String(number)
    }

    private static func isPort(_ text: Substring) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && $0.isNumber } && Int(text).map { (1...65535).contains($0) } == true
    }

    private static func isHostName(_ name: Substring) -> Bool {
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        return !name.isEmpty && name.utf8.count <= 253
            && labels.allSatisfy { label in
                (1...63).contains(label.count) && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
            }
    }
}
