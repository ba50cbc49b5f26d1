/// A request line that could not be decoded, with the id when it could be read.
public struct RequestDecodingFailure: Error, Sendable {
    /// The request's id, when the line had a readable one.
    public var id: RequestID?
    /// The error to reply with.
    public var error: WireError
}
