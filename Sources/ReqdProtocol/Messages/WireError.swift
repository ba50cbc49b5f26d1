/// An error as it travels in a reply: a stable code and a message for people.
public struct WireError: Error, Codable, Sendable, Hashable, CustomStringConvertible {
    /// The stable code.
    public var code: ErrorCode
    /// What went wrong, for people. Never contains secrets.
    public var message: String
    /// For `bad_condition`: the 1-based column in the condition where the problem starts.
    public var column: Int?

    public init(_ code: ErrorCode, _ message: String, column: Int? = nil) {
        self.code = code
        self.message = message
        self.column = column
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
