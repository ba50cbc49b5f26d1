/// What ended a job while its row was being written, so that it ends as soon as it starts.
enum StagedEnding: Equatable, Sendable {
    /// A `cancel` by id, key or scope named it.
    case requested
    /// A later registration with its key, which started at once, took over; or, for a
    /// schedule's run, the schedule's newer run (nil when that one did not start).
    case superseded(JobID?)
}
