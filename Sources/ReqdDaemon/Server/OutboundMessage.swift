import ReqdProtocol

/// A line the daemon sends to a client: a reply or an event.
public enum OutboundMessage: Sendable {
    case response(Response)
    case event(EventMessage)
}

/// Where the scheduler loop sends a connection's lines.
public protocol MessageSink: Sendable {
    /// Sends lines in order.
    func send(_ messages: [OutboundMessage])
}
