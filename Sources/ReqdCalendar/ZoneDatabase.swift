import Glibc

/// Loads zones by their IANA names from the system's time-zone files, and finds the local zone.
///
/// The data is the system's own (`/usr/share/zoneinfo`, Debian's `tzdata`), never a table in the
/// project, so a tzdata update reaches reqd with the system's.
public struct ZoneDatabase: Sendable {
    /// The directory of TZif files.
    public var directory: String

    public init(directory: String = "/usr/share/zoneinfo") { self.directory = directory }

    /// The zone named `name`: `UTC` or an IANA name such as `Europe/Berlin`.
    public func zone(named name: String) throws(CalendarError) -> ZoneRules {
        if name == "UTC" { return .utc }
        guard Self.isValidName(name) else { throw CalendarError(.unknownZone, "\(name) is not a time-zone name") }
        guard let bytes = Self.read(directory + "/" + name) else {
            throw CalendarError(.unknownZone, "no time zone named \(name) in \(directory)")
        }
        return try ZoneRules(name: name, tzif: bytes)
    }

    /// The daemon's local zone: `$TZ` when it names a zone, else `/etc/localtime`, else UTC.
    public func localZone(environmentTZ: String? = Self.environment("TZ")) -> ZoneRules {
        if var name = environmentTZ, !name.isEmpty {
            if name.hasPrefix(":") { name.removeFirst() }
            if name.hasPrefix("/"), let bytes = Self.read(name), let zone = try? ZoneRules(name: name, tzif: bytes) {
                return zone
            }
            if let zone = try? zone(named: name) { return zone }
        }
        guard let bytes = Self.read("/etc/localtime") else { return .utc }
        return (try? ZoneRules(name: Self.localtimeName() ?? "localtime", tzif: bytes)) ?? .utc
    }

    /// Whether `name` could be a zone file's path under the directory: no `..`, no leading `/`.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 255 && !name.hasPrefix("/") && !name.split(separator: "/").contains("..")
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
                    || [UInt8(ascii: "/"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "+")].contains(byte)
            }
    }

    /// The IANA name `/etc/localtime` links to, when it is a link into a zoneinfo directory.
    static func localtimeName() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/etc/localtime", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let parts = target.split(separator: "/")
        guard let index = parts.lastIndex(of: "zoneinfo"), index + 1 < parts.count else { return nil }
        return parts[(index + 1)...].joined(separator: "/")
    }

    public static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// A whole small file, or nil.
    static func read(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < 1 << 20 {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }
}
