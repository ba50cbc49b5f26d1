extension RequestBody {
    /// Reads the fields of `operation` from the request line's object.
    init(wire object: WireObject, operation: Operation) throws(WireDecodingFailure) {
        switch operation {
        case .hello:
            self = .hello(HelloRequest(protocolVersion: try object.int("protocol"), client: try object.optionalString("client")))
        case .registerCountdown: self = .registerCountdown(try CountdownSpec(wire: object))
        case .registerPoll: self = .registerPoll(try PollSpec(wire: object))
        case .submit: self = .submit(try SubmitSpec(wire: object))
        case .registerGroup: self = .registerGroup(try GroupSpec(wire: object))
        case .retry: self = .retry(RetryRequest(job: try object.string("job")))
        case .delete: self = .delete(DeleteRequest(job: try object.string("job")))
        case .cancel: self = .cancel(try JobSelector(wire: object))
        case .status:
            self = .status(
                StatusRequest(
                    job: try object.optionalString("job"), targets: try object.optionalBool("targets"),
                    attempts: try object.optionalBool("attempts")))
        case .list:
            self = .list(
                ListRequest(
                    state: try object.optionalCase("state", of: JobState.self), kind: try object.optionalCase("kind", of: JobKind.self),
                    scope: try object.optionalString("scope"), key: try object.optionalString("key"), limit: try object.optionalInt("limit"),
                    after: try object.optionalString("after")))
        case .watch: self = .watch(try JobSelector(wire: object))
        case .unwatch: self = .unwatch(UnwatchRequest(watch: try object.requestID("watch")))
        case .wait: self = .wait(WaitRequest(job: try object.string("job")))
        case .metrics: self = .metrics(MetricsRequest(soonest: try object.optionalInt("soonest")))
        case .registerSchedule: self = .registerSchedule(try ScheduleSpec(wire: object))
        case .pause: self = .pause(try JobSelector(wire: object))
        case .resume: self = .resume(try JobSelector(wire: object))
        }
    }
}
