import ReqdProtocol

/// A line the daemon sends to a client: a reply or an event.
public enum OutboundMessage: Sendable {
    case response(Response)
    indirect case event(EventMessage)

    /// Whether this is an event (which a client that does not read makes pile up) and not a reply.
    var isEvent: Bool {
        if case .event = self { true } else { false }
    }
}
