/// What a schedule does when an elapse comes while its previous run's request job is still going.
public enum ScheduleOverlap: String, Codable, Sendable, Hashable, CaseIterable {
    /// The elapse is recorded as skipped; no second run starts.
    case skip
    /// One run waits and starts when the previous one ends; further elapses meanwhile are skipped.
    case queue
    /// Latest wins: the running request job is cancelled (its request aborted on the wire) and a new run starts.
    case replace
}
