/// Why a condition could not be parsed, and where.
public struct PollConditionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 1-based column (in characters) where the problem starts.
    public var column: Int
    /// What was expected there.
    public var message: String

    /// Creates an error at a column.
    public init(column: Int, _ message: String) {
        self.column = column
        self.message = message
    }

    public var description: String { "at column \(column): \(message)" }
}
