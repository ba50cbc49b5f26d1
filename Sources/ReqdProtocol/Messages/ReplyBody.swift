/// The successful result of a request, one case per result shape.
public indirect enum ReplyBody: Sendable, Hashable {
    case hello(HelloResult)
    case registered(RegisterResult)
    case cancelled(CancelResult)
    case summary(DaemonSummary)
    case job(JobResult)
    case jobs(JobListResult)
    case watching(WatchResult)
    case unwatched(UnwatchResult)
    case metrics(MetricsResult)
}
