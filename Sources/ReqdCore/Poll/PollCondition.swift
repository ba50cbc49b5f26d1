/// The condition that ends a poll job with success, such as `/state == "done" && status == 200`.
///
/// Grammar (docs/PROTOCOL.md documents it for users):
///
///     condition  := clause ( "&&" clause )*
///     clause     := POINTER OP LITERAL | "status" OP INTEGER | "status" "in" INTEGER ".." INTEGER
///     OP         := "==" | "!=" | "<" | "<=" | ">" | ">="
///     POINTER    := an RFC 6901 JSON Pointer ("/a/b", "/items/0"); it ends at white space or an operator
///     LITERAL    := a JSON value: "string", number, true, false, null, an array or an object
///
/// A pointer that names nothing makes its clause false, whatever the operator. `==` and `!=`
/// compare JSON values (numbers by value); the ordering operators compare numbers with numbers
/// and strings with strings, and are false for any other pair.
public struct PollCondition: Sendable, Hashable, CustomStringConvertible {
    /// A comparison operator.
    public enum Comparison: String, Sendable, Hashable, CaseIterable {
        case equal = "=="
        case notEqual = "!="
        case lessOrEqual = "<="
        case greaterOrEqual = ">="
        case less = "<"
        case greater = ">"
    }

    /// One clause; all clauses must hold.
    public enum Clause: Sendable, Hashable {
        /// The value at a pointer in the JSON body, compared with a literal.
        case value(JSONPointer, Comparison, JSONValue)
        /// The HTTP status compared with a number.
        case status(Comparison, Int)
        /// The HTTP status within an inclusive range.
        case statusIn(ClosedRange<Int>)
    }

    /// The clauses, all of which must hold.
    public let clauses: [Clause]
    /// The text the condition was parsed from.
    public let source: String

    /// Whether any clause reads the body, so a body that is not JSON counts as a failed poll.
    public var needsJSON: Bool {
        clauses.contains { if case .value = $0 { true } else { false } }
    }

    /// The longest condition a registration takes, in bytes: each answer is checked against every
    /// clause on the scheduler's queue, which every job shares. A stored one is read whatever its
    /// length, so a poll registered before the limit comes back after a restart.
    public static let maxBytes = 4_096

    /// Parses a condition, or throws an error that gives the column where it went wrong.
    public init(parsing text: String) throws(SchedulerError) {
        var parser = PollConditionParser(text)
        clauses = try parser.parse()
        source = text
    }

    private init(source: String) {
        clauses = []
        self.source = source
    }

    /// The condition as an ended poll keeps it: its text, which `status` shows, without the
    /// parsed clauses that only a running poll reads (about 120 bytes of a retained poll).
    public var retired: PollCondition { PollCondition(source: source) }

    /// Whether the condition holds for an answer with this status and (when it parsed) JSON body.
    public func holds(status: Int, body: JSONValue?) -> Bool {
        clauses.allSatisfy { clause in
            switch clause {
            case .status(let comparison, let expected):
                return Self.compare(.number(Double(status)), comparison, .number(Double(expected)))
            case .statusIn(let range):
                return range.contains(status)
            case .value(let pointer, let comparison, let literal):
                guard let body, let actual = pointer.resolve(in: body) else { return false }
                return Self.compare(actual, comparison, literal)
            }
        }
    }

    static func compare(_ lhs: JSONValue, _ comparison: Comparison, _ rhs: JSONValue) -> Bool {
        switch comparison {
        case .equal: return lhs == rhs
        case .notEqual: return lhs != rhs
        default: break
        }
        let order: Bool?
        switch (lhs, rhs) {
        case (.number(let a), .number(let b)):
            order = Self.ordered(a, b, comparison)
        case (.string(let a), .string(let b)):
            order = Self.ordered(a, b, comparison)
        default:
            order = nil
        }
        return order ?? false
    }

    private static func ordered<T: Comparable>(_ a: T, _ b: T, _ comparison: Comparison) -> Bool {
        switch comparison {
        case .less: a < b
        case .lessOrEqual: a <= b
        case .greater: a > b
        case .greaterOrEqual: a >= b
        case .equal: a == b
        case .notEqual: a != b
        }
    }

    public var description: String { source }
}
