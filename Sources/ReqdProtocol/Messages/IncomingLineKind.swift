/// Any line the daemon sends: a reply (it has `ok`) or an event (it has `event`).
public struct IncomingLineKind: Decodable, Sendable {
    public var id: RequestID?
    public var ok: Bool?
    public var event: JobEventType?
    public var watch: RequestID?

    /// Whether the line is an event rather than a reply.
    public var isEvent: Bool { event != nil }
}
