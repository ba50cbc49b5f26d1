import ReqdProtocol

/// A recipient of a job event: a connection and the `watch` request that asked for it.
public struct Recipient: Hashable, Sendable {
    public var connection: ConnectionID
    public var watch: RequestID

    public init(connection: ConnectionID, watch: RequestID) {
        self.connection = connection
        self.watch = watch
    }
}
