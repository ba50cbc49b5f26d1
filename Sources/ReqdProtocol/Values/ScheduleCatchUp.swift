/// What a schedule does with elapses missed while the daemon was down or the machine slept.
public enum ScheduleCatchUp: String, Codable, Sendable, Hashable, CaseIterable {
    /// One run at start or resume, with `late_by` and the count of what was missed.
    case one
    /// No run: the missed elapses are counted, and the schedule goes on from its next elapse.
    case none
}
