/// One header field.
public struct HTTPHeader: Sendable, Hashable, Codable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// The header the daemon tags each request with inside itself, to learn which connection
    /// carried it; it is taken out before the request is encoded, so a job may not set it.
    public static let attemptTag = "x-reqd-attempt"

    /// Parses a `Name: value` line, as `curl -H` takes it.
    public init(line: String) throws(SchedulerError) {
        guard let colon = line.firstIndex(of: ":") else {
            throw SchedulerError(.badField, "a header must look like 'Name: value'")
        }
        let name = String(line[..<colon])
        let value = String(line[line.index(after: colon)...]).trimmingSpaces()
        guard Self.isToken(name) else {
            throw SchedulerError(.badField, "'\(name.prefix(64))' is not a valid header name")
        }
        guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw SchedulerError(.badField, "the value of header '\(name)' contains a line break")
        }
        guard name.lowercased() != Self.attemptTag else {
            throw SchedulerError(.badField, "'\(name)' is reqd's own header, which never reaches the server")
        }
        self.init(name: name, value: value)
    }

    /// Whether `text` is an RFC 9110 token (what a method or header name must be).
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 256
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default:
                    "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }
}
