/// The kind of a job, as named on the wire.
public enum JobKind: String, Codable, Sendable, CaseIterable, Hashable {
    case countdown
    case poll
    /// A one-shot request (`submit`, or a countdown's `on_expire`), sent until an attempt is answered.
    case request
    /// Several requests run together under a concurrency cap, reported once when all have ended.
    case group
    /// A recurring job: a calendar, cron or interval rule whose every elapse starts a request job
    /// (or only tells its watchers).
    case schedule
}
