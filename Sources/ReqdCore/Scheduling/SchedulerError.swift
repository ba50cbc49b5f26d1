import ReqdProtocol

/// Why the scheduler refused a request: a wire error code and a message for people.
///
/// ReqdCore speaks the wire's vocabulary (its replies and events are `ReqdProtocol` types), so a
/// refusal carries its `ErrorCode` directly; there is no second list of codes to keep in step.
/// The daemon turns it into a reply's `WireError` in one place, `WireErrorMapping`.
public struct SchedulerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable wire code.
    public typealias Code = ErrorCode

    public var code: Code
    /// For people; names fields and values the client sent, never secrets such as header values or bodies.
    public var message: String
    /// For `badCondition`: the 1-based column where the problem starts.
    public var column: Int?

    public init(_ code: Code, _ message: String, column: Int? = nil) {
        self.code = code
        self.message = message
        self.column = column
    }

    public var description: String { message }
}

extension SchedulerError {
    /// A poll condition that cannot be parsed: what was expected, and the 1-based column (in
    /// characters) where the problem starts, in the message as well.
    static func badCondition(column: Int, _ message: String) -> SchedulerError {
        SchedulerError(.badCondition, "at column \(column): \(message)", column: column)
    }
}
