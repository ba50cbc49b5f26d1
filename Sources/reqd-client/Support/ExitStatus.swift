import ArgumentParser
import ReqdProtocol

/// The client's exit statuses, as README.md documents them.
enum ExitStatus {
    static let success: Int32 = 0
    /// `calendar` found no next elapse. A failure of the client that no other status names exits
    /// 1 as well, through ArgumentParser; every daemon error code has a status of its own.
    static let failure: Int32 = 1
    /// The job ended `failed`.
    static let jobFailed: Int32 = 2
    /// The job was cancelled.
    static let jobCancelled: Int32 = 3
    /// The job ended `timed_out`.
    static let jobTimedOut: Int32 = 4
    /// The request job used up its attempts and was dead-lettered (`dead`).
    static let jobDead: Int32 = 5
    /// No such job (`unknown_job`).
    static let unknownJob: Int32 = 10
    /// The daemon refused the request's values (`bad_field`, `missing_field`, `bad_duration`, `denied_target`, ...).
    static let invalidRequest: Int32 = 11
    /// The daemon cannot take the work now (`too_many_jobs`, `quota_exceeded`, `too_many_connections`, `storage_unavailable`, `shutting_down`).
    static let unavailable: Int32 = 12
    /// Client and daemon do not understand each other (`bad_json`, `unknown_op`, `unsupported_protocol`).
    static let protocolMismatch: Int32 = 13
    /// The daemon reported an internal error.
    static let internalError: Int32 = 14
    /// Bad usage of the client itself (ArgumentParser's EX_USAGE).
    static let usage: Int32 = 64
    /// The daemon could not be reached (EX_UNAVAILABLE).
    static let unreachable: Int32 = 69
    /// `wait --timeout` ran out before the job ended (as timeout(1)).
    static let waitTimedOut: Int32 = 124

    /// The status for a daemon error code.
    static func forError(_ code: ErrorCode) -> Int32 {
        switch code {
        case .unknownJob: unknownJob
        case .badField, .missingField, .unknownField, .conflictingFields, .badDuration, .badURL, .badCondition, .badSchedule, .deniedTarget,
            .lineTooLong:
            invalidRequest
        case .tooManyJobs, .quotaExceeded, .tooManyConnections, .storageUnavailable, .shuttingDown: unavailable
        case .badJSON, .unknownOperation, .unsupportedProtocol: protocolMismatch
        case .internal: internalError
        }
    }

    /// The status for a job's terminal event; nil for the others.
    static func forEvent(_ event: JobEvent) -> Int32? {
        switch event.type {
        case .expired, .succeeded: success
        case .cancelled: jobCancelled
        case .failed: jobFailed
        case .timedOut: jobTimedOut
        case .dead: jobDead
        case .completed: forState(event.state ?? .failed)
        case .registered, .tick, .polled, .progress, .retrying, .held, .member, .elapsed, .paused, .resumed: nil
        }
    }

    /// The status for how a job ended.
    static func forState(_ state: JobState) -> Int32 {
        switch state {
        case .active, .expired, .succeeded, .completed: success
        case .cancelled: jobCancelled
        case .failed: jobFailed
        case .timedOut: jobTimedOut
        case .dead: jobDead
        }
    }
}
