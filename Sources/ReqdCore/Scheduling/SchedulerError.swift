/// Why the scheduler refused a request. The daemon maps `code` to a wire code in one place.
public struct SchedulerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of refusal this is.
    public enum Code: Sendable, Hashable {
        case badField
        case missingField
        case conflictingFields
        case badDuration
        case badURL
        case badCondition
        case unknownJob
        case unsupportedProtocol
        case tooManyJobs
        case storageUnavailable
        case shuttingDown
    }

    public var code: Code
    /// For people; names fields and values the client sent, never secrets.
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
