import ReqdProtocol

/// A line the daemon sends to a client: a reply or an event.
public enum OutboundMessage: Sendable {
    case response(Response)
    case event(EventMessage)
}
