/// The `hello` result.
public struct HelloResult: Codable, Sendable, Hashable {
    public var protocolVersion: Int
    public var server: String
    public var version: String
    /// The uid the daemon sees this connection as.
    public var uid: UInt32

    public init(protocolVersion: Int, server: String, version: String, uid: UInt32) {
        self.protocolVersion = protocolVersion
        self.server = server
        self.version = version
        self.uid = uid
    }

    enum CodingKeys: String, CodingKey {
        case protocolVersion = "protocol"
        case server, version, uid
    }
}
