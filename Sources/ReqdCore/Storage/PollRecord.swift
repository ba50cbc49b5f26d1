import ReqdProtocol

/// A poll job as stored: its settings, written once, and its counters, updated after every answer.
public typealias PollRecord = WorkRecord<PollSettings, PollCounters>

extension WorkRecord where Settings == PollSettings, Counters == PollCounters {
    /// The stored form of a poll, with its boot-time instants projected onto the wall clock.
    init(_ poll: Poll, at now: ClockReading) {
        self.init(
            settings: PollSettings(
                request: poll.request, everyNanos: poll.every, condition: poll.condition.source,
                progressPointer: poll.progressPointer?.description, timeoutNanos: poll.timeout,
                deadline: poll.deadline.map(now.wall(at:)), maxPolls: poll.maxPolls, maxFailures: poll.maxFailures),
            counters: PollCounters(poll, at: now))
    }

    /// The poll as it resumes: counters kept, and the next request where the interval (or the
    /// failure backoff) puts it, or at `createdAt` for a poll never answered. A request that was
    /// out when the daemon stopped is not counted; it is simply sent again.
    ///
    /// A request that fell due while the daemon was down stays due in the past: it is overdue, and
    /// waits for a catch-up slot (`CatchupPacer`).
    func resumed(at now: ClockReading, createdAt: WallTime, maxBackoff: Int64) -> Poll? {
        guard let condition = try? PollCondition(parsing: settings.condition), settings.everyNanos > 0, settings.maxFailures > 0
        else { return nil }
        var poll = Poll(
            request: settings.request, every: settings.everyNanos, condition: condition,
            progressPointer: settings.progressPointer.flatMap(JSONPointer.init), timeout: settings.timeoutNanos,
            deadline: settings.deadline.map(now.instant(at:)), maxPolls: settings.maxPolls, maxFailures: settings.maxFailures,
            firstStart: now.instant(at: createdAt))
        poll.polls = counters.polls
        poll.attempts = UInt32(clamping: counters.polls)
        poll.failures = counters.failures
        poll.progress = counters.progress
        poll.lastStatus = counters.lastStatus
        poll.lastError = counters.lastError
        if let lastStart = counters.lastStart {
            let start = now.instant(at: lastStart)
            poll.lastStart = start
            let wait = counters.failures > 0 ? poll.backoff(cap: maxBackoff) : settings.everyNanos
            poll.nextStart = start.advanced(by: wait)
        }
        return poll
    }
}
