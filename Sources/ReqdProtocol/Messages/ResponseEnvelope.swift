/// A reply as a client reads it: the result stays undecoded until the client knows its type.
public struct ResponseEnvelope<Result: Decodable & Sendable>: Decodable, Sendable {
    public var id: RequestID?
    public var ok: Bool
    public var result: Result?
    public var error: WireError?
}
