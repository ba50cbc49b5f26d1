/// An IPv4 or IPv6 address as 16 bytes; an IPv4 address is held IPv4-mapped (`::ffff:a.b.c.d`).
///
/// One form for both families means `::ffff:169.254.169.254` meets the same ranges as
/// `169.254.169.254`, so writing an IPv4 address the IPv6 way cannot get past the target policy.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The 16 bytes, network order.
    public let bytes: [UInt8]

    /// The IPv4-mapped prefix: ten zero bytes and two 0xff.
    static let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]

    /// An address from its 4 (IPv4) or 16 (IPv6) bytes; nil for any other length.
    public init?(bytes: [UInt8]) {
        switch bytes.count {
        case 4: self.bytes = Self.mappedPrefix + bytes
        case 16: self.bytes = bytes
        default: return nil
        }
    }

    /// Parses a dotted-quad IPv4 address or an IPv6 address (with `::` and a trailing dotted quad
    /// allowed); nil for anything else, host names included. A zone (`%eth0`) is dropped.
    public init?(_ text: Substring) {
        if let v4 = Self.parseV4(text) {
            bytes = Self.mappedPrefix + v4
            return
        }
        guard let v6 = Self.parseV6(text) else { return nil }
        bytes = v6
    }

    /// Whether the address is IPv4 (held IPv4-mapped).
    public var isV4: Bool { bytes.starts(with: Self.mappedPrefix) }

    /// Other addresses a connection to this one may really reach, which the policy checks too:
    /// - the IPv4 address inside an IPv6 one that carries it: NAT64 (`64:ff9b::/96`, and the
    ///   local-use `64:ff9b:1::/48` with the address in its last 32 bits), IPv4-translated
    ///   (`::ffff:0:a.b.c.d`), IPv4-compatible (`::a.b.c.d`) and 6to4 (`2002:aabb:ccdd::/48`);
    /// - loopback for the unspecified address (`0.0.0.0`, `::`), which Linux connects to itself.
    public var reachable: [IPAddress] {
        var zeros = 0
        while zeros < 16, bytes[zeros] == 0 { zeros += 1 }
        if zeros == 16 { return [Self(bytes: [UInt8](repeating: 0, count: 15) + [1])!, Self(bytes: [127, 0, 0, 1])!] }
        if isV4, bytes[12...] == [0, 0, 0, 0] { return [Self(bytes: [127, 0, 0, 1])!] }
        let nat64 = bytes.starts(with: [0, 0x64, 0xff, 0x9b]) && bytes[4..<12].allSatisfy({ $0 == 0 })
        let localNAT64 = bytes.starts(with: [0, 0x64, 0xff, 0x9b, 0, 1])
        let translated = zeros >= 8 && bytes[8..<12] == [0xff, 0xff, 0, 0]
        if nat64 || localNAT64 || translated || zeros >= 12 && zeros < 15 {
            return [Self(bytes: Array(bytes[12...]))!]
        }
        if bytes.starts(with: [0x20, 0x02]) { return [Self(bytes: Array(bytes[2..<6]))!] }
        return []
    }

    /// The usual text: a dotted quad for IPv4, lower-case groups for IPv6 (without `::` shortening).
    public var description: String {
        if isV4 { return bytes[12...].map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2)
            .map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }

    /// The one spelling RFC 5952 gives an address: an IPv4 address (IPv4-mapped included) as its
    /// dotted quad, IPv6 in lower case without leading zeros, its longest run of two or more zero
    /// groups (the first of equal runs) written `::`.
    ///
    /// Targets are counted by this spelling, so `[0:0::1]` cannot escape the limits of `[::1]`.
    public var canonical: String {
        if isV4 { return description }
        let groups = stride(from: 0, to: 16, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
        var (bestStart, bestLength, start) = (-1, 1, -1)
        for (index, group) in groups.enumerated() {
            if group != 0 {
                start = -1
                continue
            }
            if start < 0 { start = index }
            if index - start + 1 > bestLength { (bestStart, bestLength) = (start, index - start + 1) }
        }
        func text(_ range: Range<Int>) -> String { groups[range].map { String($0, radix: 16) }.joined(separator: ":") }
        guard bestStart >= 0 else { return text(0..<8) }
        return text(0..<bestStart) + "::" + text((bestStart + bestLength)..<8)
    }

    private static func parseV4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var result: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                part.count == 1 || part.first != "0", let value = UInt8(part)
            else { return nil }
            result.append(value)
        }
        return result
    }

    private static func parseV6(_ raw: Substring) -> [UInt8]? {
        let text = raw.firstIndex(of: "%").map { raw[..<$0] } ?? raw
        guard text.contains(":"), text.utf8.count <= 45 else { return nil }
        func groups(_ part: Substring, dottedTail: Bool) -> [UInt8]? {
            if part.isEmpty { return [] }
            var result: [UInt8] = []
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, field) in fields.enumerated() {
                if dottedTail, index == fields.count - 1, field.contains(".") {
                    guard let v4 = parseV4(field) else { return nil }
                    result += v4
                    continue
                }
                guard (1...4).contains(field.count), let value = UInt16(field, radix: 16) else { return nil }
                result += [UInt8(value >> 8), UInt8(value & 0xff)]
            }
            return result
        }
        let halves = text.split(separator: "::", maxSplits: 1, omittingEmptySubsequences: false)
        if halves.count == 1 {
            guard let all = groups(text, dottedTail: true), all.count == 16 else { return nil }
            return all
        }
        guard !halves[1].contains("::"), let head = groups(halves[0], dottedTail: false), let tail = groups(halves[1], dottedTail: true),
            head.count + tail.count <= 14
        else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }
}
