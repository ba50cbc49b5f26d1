/// The result of `cancel`.
///
/// A scope cancel can end a million jobs; the reply names at most `maxListedIDs` of them, so its
/// size never follows the number of jobs.
public struct CancelResult: Codable, Sendable, Hashable {
    /// The ids of the jobs this request cancelled, `maxListedIDs` of them at most.
    public var cancelled: [String]
    /// How many jobs this request cancelled.
    public var count: Int
    /// True when `cancelled` lists fewer ids than `count`; absent otherwise.
    public var truncated: Bool?

    /// Ids a reply lists at most.
    public static let maxListedIDs = 1_000

    /// The result for cancelling `cancelled`: all of them counted, the first `maxListedIDs` of the
    /// collection named.
    public init(cancelled: some Collection<String>) {
        self.cancelled = Array(cancelled.prefix(Self.maxListedIDs))
        count = cancelled.count
        truncated = count > self.cancelled.count ? true : nil
    }
}
