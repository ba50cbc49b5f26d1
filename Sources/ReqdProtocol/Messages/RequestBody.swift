/// The operation a request asks for, with its fields.
public indirect enum RequestBody: Sendable, Hashable {
    case hello(HelloRequest)
    case registerCountdown(CountdownSpec)
    case registerPoll(PollSpec)
    case submit(SubmitSpec)
    case registerGroup(GroupSpec)
    case retry(RetryRequest)
    case delete(DeleteRequest)
    case cancel(JobSelector)
    case status(StatusRequest)
    case list(ListRequest)
    case watch(JobSelector)
    case unwatch(UnwatchRequest)
    case wait(WaitRequest)
    case metrics(MetricsRequest)
    case registerSchedule(ScheduleSpec)
    /// Stops a schedule's elapses (job, key or scope); a run in flight goes on.
    case pause(JobSelector)
    /// Starts a paused schedule again from its next future elapse.
    case resume(JobSelector)

    /// The `op` name of this body.
    public var operation: Operation {
        switch self {
        case .hello: .hello
        case .registerCountdown: .registerCountdown
        case .registerPoll: .registerPoll
        case .submit: .submit
        case .registerGroup: .registerGroup
        case .retry: .retry
        case .delete: .delete
        case .cancel: .cancel
        case .status: .status
        case .list: .list
        case .watch: .watch
        case .unwatch: .unwatch
        case .wait: .wait
        case .metrics: .metrics
        case .registerSchedule: .registerSchedule
        case .pause: .pause
        case .resume: .resume
        }
    }
}
