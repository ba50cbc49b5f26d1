/// `hello`: states the protocol version the client speaks.
public struct HelloRequest: Codable, Sendable, Hashable {
    /// The protocol version the client speaks.
    public var protocolVersion: Int
    /// A free-form client name for logs, such as `reqd-client/0.1.0`.
    public var client: String?

    public init(protocolVersion: Int = ProtocolInfo.version, client: String? = nil) {
        self.protocolVersion = protocolVersion
        self.client = client
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case protocolVersion = "protocol"
        case client
    }
}
