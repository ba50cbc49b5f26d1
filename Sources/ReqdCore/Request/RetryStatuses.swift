/// The HTTP statuses a request job retries: exact statuses and whole classes such as `5xx`.
public struct RetryStatuses: Sendable, Hashable {
    public var statuses: Set<Int>
    /// Hundreds: `5` stands for 500 to 599.
    public var classes: Set<Int>

    /// 408, 425, 429 and every 5xx: the answers that say "not now" rather than "no".
    public static let standard = RetryStatuses(statuses: [408, 425, 429], classes: [5])

    public init(statuses: Set<Int>, classes: Set<Int>) {
        self.statuses = statuses
        self.classes = classes
    }

    /// Reads entries such as `"404"` or `"5xx"`.
    public init(parsing entries: [String]) throws(SchedulerError) {
        var statuses: Set<Int> = []
        var classes: Set<Int> = []
        for entry in entries {
            let text = entry.lowercased()
            if text.count == 3, text.hasSuffix("xx"), let hundred = Int(text.prefix(1)), (1...5).contains(hundred) {
                classes.insert(hundred)
            } else if let status = Int(text), (100...599).contains(status) {
                statuses.insert(status)
            } else {
                throw SchedulerError(.badField, "'retry_on' takes statuses such as \"404\" or classes such as \"5xx\", not '\(entry.prefix(32))'")
            }
        }
        self.init(statuses: statuses, classes: classes)
    }

    /// Whether an answer with this status is worth another attempt.
    public func contains(_ status: Int) -> Bool { statuses.contains(status) || classes.contains(status / 100) }

    /// The entries as the wire and the store name them, sorted.
    public var entries: [String] { statuses.sorted().map(String.init) + classes.sorted().map { "\($0)xx" } }
}
