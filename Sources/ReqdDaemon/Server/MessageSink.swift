/// Where the scheduler loop sends a connection's lines.
public protocol MessageSink: Sendable {
    /// Sends lines in order.
    func send(_ messages: [OutboundMessage])
}
