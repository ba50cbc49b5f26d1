import ReqdProtocol

/// A group job's events, in the vocabulary every kind shares.
extension Group {
    /// Starts what is due (retries of running members, then pending members in order while a slot
    /// is free), at most `startLimit` requests, and plans the group's next need for the timer.
    mutating func advance(_ id: JobID, at now: Instant, timeout: Int64, startLimit: Int = .max) -> JobAction {
        let started = startDue(at: now, timeout: timeout, limit: startLimit)
        var action = JobAction(deadline: nextFire.map { .set($0) } ?? .clear)
        // A member's first request is stored as `running`: a restore after the group's time limit
        // then knows it may have reached its target (`timed_out`), rather than never started.
        for start in started where members[start.member].delivery.attempts == 1 { action.persist.append(.member(start.member)) }
        action.wire = started.map { start in
            var send = HTTPSend(job: id, attempt: start.number, request: members[start.member].delivery.request, parseJSON: false)
            send.member = start.member
            return .send(send)
        }
        return action
    }

    /// Handles the group's timer: its time limit, or member requests left unanswered.
    mutating func timerFired(at now: ClockReading, random: inout RandomSource, configuration: SchedulerConfiguration) -> JobAction {
        if let deadline, deadline <= now.instant {
            let aborted = timeOut()
            return JobAction(wire: aborted.map { .abort(attempt: $0) }, end: completion())
        }
        let waited = DurationText.format(nanoseconds: configuration.requestTimeoutNanos)
        let unanswered = running.filter { index in
            let delivery = members[index].delivery
            return delivery.inFlight && members[index].wire != nil && delivery.requestDeadline.map { $0 <= now.instant } == true
        }
        var action = JobAction()
        for index in unanswered.sorted() {
            guard let wire = members[index].wire else { continue }
            action.wire.append(.abort(attempt: wire))
            action.timedOut.append(String(RequestURL.origin(members[index].delivery.request.url)))
            let step = finish(
                wire, .failure("no answer within \(waited)"), at: now, random: random.unit(), keeping: configuration.resultBodyBytes)
            if let step { record(step, into: &action) }
        }
        return action
    }

    /// Handles the end of a member's request; nil when no member waits for it.
    mutating func httpFinished(
        request number: UInt32, _ outcome: HTTPOutcome, at now: ClockReading, jitter: Double, configuration: SchedulerConfiguration
    ) -> JobAction? {
        guard let step = finish(number, outcome, at: now, random: jitter, keeping: configuration.resultBodyBytes) else { return nil }
        var action = JobAction()
        record(step, into: &action)
        return action
    }

    /// A member that ended tells the watchers and the store; the last one completes the group.
    private func record(_ step: Step, into action: inout JobAction) {
        guard case .ended(let index, let complete) = step else {
            if case .retrying(let index) = step {
                action.unreportedRetries += 1
                // Its attempts so far are stored, so that a restart does not give it fresh ones.
                action.persist.append(.member(index))
            }
            return
        }
        let member = members[index]
        var note = JobNote(.member, status: member.delivery.lastStatus, error: member.error, member: index, memberState: member.state)
        (note.done, note.failures) = (done, failures)
        action.notes.append(note)
        if complete {
            action.end = completion()
        } else {
            action.persist.append(.member(index))
        }
    }

    /// How the group ends once every member has: `succeeded` only if every one did, else `failed`
    /// with every error. Its `completed` event and its `on_complete` request follow, once.
    func completion() -> JobEnd {
        guard failures > 0 else { return JobEnd(.succeeded, report: onComplete?.value) }
        return JobEnd(.failed, error: "\(failures) of \(members.count) members did not succeed", report: onComplete?.value)
    }
}
