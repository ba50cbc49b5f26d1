import ReqdProtocol

/// Which network targets the daemon may call: `http.allow` and `http.deny`.
///
/// Each entry is a CIDR range (`10.0.0.0/8`, `fe80::/10`; a bare address is a one-address range),
/// and `allow` also takes host names (`api.example.com`, or `*.example.com` for names below it).
///
/// The decision for a name:
/// - a name `allow` lists is allowed, whatever it resolves to;
/// - otherwise every address the name resolves to must be allowed, or the request is denied;
/// - for one address, the most specific range that holds it, from either list, decides (deny on a
///   tie); an address in no range is allowed.
///
/// So `deny` alone blocks ranges, an `allow` range inside a denied one makes an exception, and
/// `deny = ["0.0.0.0/0", "::/0"]` with `allow` entries turns the policy into an allow-list.
public struct TargetPolicy: Sendable, Hashable {
    /// A CIDR range; IPv4 ranges are held IPv4-mapped, so their prefix counts from bit 96.
    public struct Range: Sendable, Hashable, CustomStringConvertible {
        /// The first address of the range.
        public let base: IPAddress
        /// Leading bits that must match, 0 to 128.
        public let prefix: Int
        /// The entry as written in the configuration.
        public let description: String

        /// Parses `10.0.0.0/8`, `fe80::/10` or a bare address; nil when it is none of these.
        public init?(_ text: String) {
            let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let address = IPAddress(parts[0]) else { return nil }
            let isV4 = !parts[0].contains(":")
            let width = isV4 ? 32 : 128
            var prefix = width
            if parts.count == 2 {
                guard let bits = Int(parts[1]), (0...width).contains(bits), parts[1].allSatisfy(\.isNumber) else { return nil }
                prefix = bits
            }
            self.prefix = prefix + (isV4 ? 96 : 0)
            base = address
            description = text
        }

        /// Whether `address` lies in the range.
        public func contains(_ address: IPAddress) -> Bool {
            var bits = prefix
            var index = 0
            while bits > 0 {
                let mask: UInt8 = bits >= 8 ? 0xff : ~(0xff >> UInt8(bits))
                if address.bytes[index] & mask != base.bytes[index] & mask { return false }
                bits -= 8
                index += 1
            }
            return true
        }
    }

    /// Why a target is refused: the address and the `deny` range that holds it.
    public struct Denial: Sendable, Hashable, CustomStringConvertible {
        /// The address in the range.
        public let address: IPAddress
        /// The `http.deny` entry that refuses it.
        public let range: Range
        /// The address the target named, when it is another that leads to `address` (`IPAddress.reachable`).
        public var via: IPAddress? = nil

        public init(address: IPAddress, range: Range, via: IPAddress? = nil) {
            self.address = address
            self.range = range
            self.via = via
        }

        /// For people: the address and the entry, such as `169.254.169.254 is in 169.254.0.0/16, which http.deny refuses`.
        public var description: String {
            let start = via.map { "\($0) leads to \(address), which" } ?? "\(address)"
            return "\(start) is in \(range), which http.deny refuses"
        }

        /// The `error` of a job whose attempt the policy refused: the code, then the description.
        public var jobError: String { "\(ErrorCode.deniedTarget.rawValue): \(description)" }
    }

    /// The `http.allow` entries as written: ranges and host names.
    public var allow: [String] = [] {
        didSet { (allowRanges, allowNames) = (allow.compactMap(Range.init), allow.compactMap(Self.allowedName)) }
    }
    /// The `http.deny` entries as written: ranges.
    public var deny: [String] = [] {
        didSet { denyRanges = deny.compactMap(Range.init) }
    }
    private var allowRanges: [Range] = []
    /// Lower case; `*.example.com` is kept as `.example.com`.
    private var allowNames: [String] = []
    private var denyRanges: [Range] = []

    /// The policy that allows everything.
    public init() {}

    /// Refuses (`bad_field`) the first entry that cannot be read: an `allow` entry that is neither
    /// a range nor a host name, a `deny` entry that is not a range.
    public static func check(allow: [String], deny: [String]) throws(SchedulerError) {
        for entry in allow where Range(entry) == nil && hostName(entry) == nil {
            throw SchedulerError(.badField, "lists '\(entry)', which is neither a CIDR range nor a host name")
        }
        for entry in deny where Range(entry) == nil {
            throw SchedulerError(.badField, "lists '\(entry)', which is not a CIDR range such as 10.0.0.0/8 or fe80::/10")
        }
    }

    /// Whether the policy can refuse anything: only `deny` ranges refuse.
    public var isActive: Bool { !denyRanges.isEmpty }

    /// Whether `allow` names `host` (exactly, or below a `*.` entry).
    public func allowsName(_ host: some StringProtocol) -> Bool {
        guard !allowNames.isEmpty else { return false }
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return allowNames.contains { $0.hasPrefix(".") ? name.hasSuffix($0) : name == $0 }
    }

    /// The refusal of one address, or of an address it reaches (`IPAddress.reachable`); nil when
    /// the policy allows them all.
    public func denial(of address: IPAddress) -> Denial? {
        for candidate in [address] + address.reachable {
            if let denial = denialOfExactly(candidate) {
                return Denial(address: candidate, range: denial.range, via: candidate == address ? nil : address)
            }
        }
        return nil
    }

    private func denialOfExactly(_ address: IPAddress) -> Denial? {
        guard let denied = denyRanges.filter({ $0.contains(address) }).max(by: { $0.prefix < $1.prefix }) else { return nil }
        if allowRanges.contains(where: { $0.prefix > denied.prefix && $0.contains(address) }) { return nil }
        return Denial(address: address, range: denied)
    }

    /// The refusal of a name that resolved to `addresses`: the first address refused, unless
    /// `allow` names the host.
    public func denial(host: some StringProtocol, addresses: [IPAddress]) -> Denial? {
        guard isActive, !allowsName(host) else { return nil }
        for address in addresses {
            if let denial = denial(of: address) { return denial }
        }
        return nil
    }

    /// An `allow` entry's host name, or nil when it is a range (or unreadable).
    private static func allowedName(_ entry: String) -> String? {
        Range(entry) == nil ? hostName(entry) : nil
    }

    /// A lower-case host name, or `.suffix` for `*.suffix`; nil for text that is not a host name.
    private static func hostName(_ entry: String) -> String? {
        var name = entry.lowercased()
        var wildcard = false
        if name.hasPrefix("*.") {
            name.removeFirst(2)
            wildcard = true
        }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard !name.isEmpty, name.utf8.count <= 253,
            labels.allSatisfy({ label in
                (1...63).contains(label.count) && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            })
        else { return nil }
        return wildcard ? "." + name : name
    }
}
