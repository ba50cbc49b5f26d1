/// Why an expression, a zone or a time was refused. One error type for the module.
public struct CalendarError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of refusal: stable, for mapping to wire codes.
    public enum Code: String, Hashable, Sendable {
        /// The expression does not parse, or a value is out of range.
        case badExpression = "bad_expression"
        /// The expression parses but never elapses.
        case neverElapses = "never_elapses"
        /// The zone is not known, or its file is not a TZif file.
        case unknownZone = "unknown_zone"
        /// A time given to start from does not parse.
        case badTime = "bad_time"
    }

    public var code: Code
    /// The part of the expression at fault (`day`, `hour`, `weekday`), when one is.
    public var field: String?
    public var message: String

    public init(_ code: Code, field: String? = nil, _ message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    public var description: String { message }
}
