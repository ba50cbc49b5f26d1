import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Fixture.second
private let ms = Fixture.ms
private let configuration = Fixture.configuration
private let id = JobID("pl_machine")

private extension Poll {
    /// A poll every 2 s until `/state == "done"`, reading progress at `/progress`, its first request due at the start.
    static func every2s(maxFailures: Int = 3, timeout: Int64? = nil, maxPolls: Int? = nil) -> Poll {
        Poll(
            request: Fixture.get("https://api.example/jobs/7"), every: 2 * Fixture.second,
            condition: try! PollCondition(parsing: #"/state == "done""#), progressPointer: JSONPointer("/progress"),
            timeout: timeout, deadline: timeout.map(Fixture.start.advanced(by:)), maxPolls: maxPolls, maxFailures: maxFailures,
            firstStart: Fixture.start)
    }

    /// The poll with its request number `attempt` out since the start, every earlier one answered.
    static func inFlight(attempt: UInt32, failures: Int = 0, progress: Double? = nil, timeout: Int64? = nil) -> Poll {
        var poll = every2s(timeout: timeout)
        poll.attempts = attempt
        poll.polls = Int(attempt) - 1
        poll.failures = failures
        poll.progress = progress
        poll.lastStart = Fixture.start
        poll.requestDeadline = Fixture.start.advanced(by: Fixture.configuration.requestTimeoutNanos)
        return poll
    }

    /// The request this poll sends as number `attempt`.
    func send(_ attempt: UInt32) -> JobAction.WireOp {
        .send(HTTPSend(job: id, attempt: attempt, request: request, parseJSON: true, keepHeaders: true))
    }

    /// `httpFinished`, with the attempt-log entry checked and taken out so the rest compares whole.
    mutating func finished(attempt: UInt32, _ outcome: HTTPOutcome, at now: ClockReading) -> JobAction? {
        guard var action = httpFinished(attempt: attempt, outcome, at: now, configuration: configuration) else { return nil }
        #expect(action.attempt?.number == Int(attempt))
        action.attempt = nil
        return action
    }

    /// `timerFired`, with any attempt-log entry (a request timed out) taken out.
    mutating func fired(at now: ClockReading) -> JobAction {
        var action = timerFired(at: now, configuration: configuration)
        if let attempt = action.attempt { #expect(attempt.number == Int(attempts) && attempt.error != nil) }
        action.attempt = nil
        return action
    }
}

/// An answer of 200 whose JSON body has this state and progress.
private func remote(_ state: String, progress: Double? = nil) -> HTTPAnswer {
    let json = JSONValue.remote(state: state, progress: progress)
    return HTTPAnswer(status: 200, body: JSONBody.encode(json), json: json)
}

@Suite("Poll machine, alone")
struct PollMachineTests {
    @Test("the next request starts at max(last start + every, answer)")
    func nextStart() throws {
        var fast = Poll.inFlight(attempt: 3)
        #expect(
            fast.finished(attempt: 3, .response(remote("running")), at: reading(500 * ms))
                == JobAction(notes: [JobNote(.polled, status: 200)], persist: [.pollCounters]))
        #expect(fast.advance(id, at: at(500 * ms), configuration: configuration) == JobAction(deadline: .set(at(2 * second))))
        #expect(
            fast.advance(id, at: at(2 * second), configuration: configuration)
                == JobAction(wire: [fast.send(4)], deadline: .set(at(32 * second))))

        var slow = Poll.inFlight(attempt: 3)
        _ = slow.finished(attempt: 3, .response(remote("running")), at: reading(3_500 * ms))
        #expect(
            slow.advance(id, at: at(3_500 * ms), configuration: configuration)
                == JobAction(wire: [slow.send(4)], deadline: .set(at(33_500 * ms))))
    }

    @Test("no second request while one is out, and a stale answer changes nothing")
    func oneAtATime() {
        var poll = Poll.inFlight(attempt: 3)
        #expect(poll.advance(id, at: at(10 * second), configuration: configuration) == JobAction(deadline: .set(at(30 * second))))
        #expect(poll.finished(attempt: 2, .response(remote("done")), at: reading(10 * second)) == nil)
        #expect(poll.attempts == 3 && poll.polls == 2 && poll.inFlight)
    }

    @Test("the request timeout aborts the request first, then counts a failure")
    func requestTimeout() {
        var poll = Poll.inFlight(attempt: 3)
        #expect(poll.fired(at: reading(29 * second)) == .none)
        #expect(
            poll.fired(at: reading(30 * second))
                == JobAction(
                    wire: [.abort(attempt: 3)], notes: [JobNote(.polled, error: "no answer within 30s")], persist: [.pollCounters],
                    timedOut: ["https://api.example"]))
        #expect(poll.failures == 1 && !poll.inFlight)
        #expect(poll.advance(id, at: at(30 * second), configuration: configuration).wire == [poll.send(4)])
    }

    @Test("failures back off from `every`, doubling; max_failures in a row end it failed with the last error")
    func failuresEndIt() {
        var poll = Poll.inFlight(attempt: 3, failures: 1)
        #expect(
            poll.finished(attempt: 3, Fixture.answer(503), at: reading(100 * ms))
                == JobAction(notes: [JobNote(.polled, status: 503, error: "the server answered 503")], persist: [.pollCounters]))
        // The second failure in a row waits 2 × every from the last start.
        #expect(poll.advance(id, at: at(100 * ms), configuration: configuration) == JobAction(deadline: .set(at(4 * second))))
        #expect(poll.advance(id, at: at(4 * second), configuration: configuration).wire == [poll.send(4)])
        #expect(
            poll.finished(attempt: 4, .failure("connection reset"), at: reading(5 * second))
                == JobAction(
                    notes: [JobNote(.polled, error: "connection reset")],
                    end: JobEnd(.failed, error: "3 polls in a row failed; the last: connection reset")))
    }

    @Test("progress never moves back: a stale value is dropped with a debug note")
    func progressOnlyForward() {
        var poll = Poll.inFlight(attempt: 3, progress: 50)
        var action = poll.finished(attempt: 3, .response(remote("running", progress: 40)), at: reading(1 * second))
        #expect(action?.notes == [JobNote(.polled, status: 200)])
        #expect(action?.debug == ["dropped stale progress 40.0 (already at 50.0)"])
        #expect(poll.progress == 50)

        _ = poll.advance(id, at: at(2 * second), configuration: configuration)
        action = poll.finished(attempt: 4, .response(remote("running", progress: 60)), at: reading(3 * second))
        #expect(action == JobAction(notes: [JobNote(.progress, status: 200)], persist: [.pollCounters]))
        #expect(poll.progress == 60)
    }

    @Test("the condition holding ends it succeeded with the answer as its result")
    func succeeds() {
        var poll = Poll.inFlight(attempt: 3)
        let done = remote("done", progress: 100)
        #expect(
            poll.finished(attempt: 3, .response(done), at: reading(1 * second))
                == JobAction(
                    notes: [JobNote(.progress, status: 200)], result: done.kept(configuration.resultBodyBytes), end: JobEnd(.succeeded)))
    }

    @Test("the time limit ends it timed_out, and no request starts at or after it")
    func timeLimit() {
        var poll = Poll.inFlight(attempt: 3, timeout: 20 * second)
        #expect(poll.advance(id, at: at(1 * second), configuration: configuration) == JobAction(deadline: .set(at(20 * second))))
        _ = poll.finished(attempt: 3, .response(remote("running")), at: reading(19_500 * ms))
        #expect(poll.advance(id, at: at(20 * second), configuration: configuration).wire == [])
        #expect(
            poll.fired(at: reading(20 * second))
                == JobAction(end: JobEnd(.timedOut, error: "the time limit of 20s ran out")))
    }

    @Test("max_polls answers without the condition end it timed_out")
    func maxPolls() {
        var poll = Poll.every2s(maxPolls: 1)
        #expect(poll.advance(id, at: at(0), configuration: configuration).wire == [poll.send(1)])
        #expect(
            poll.finished(attempt: 1, .response(remote("running")), at: reading(1 * second))?.end
                == JobEnd(.timedOut, error: "the condition did not hold within 1 polls"))
    }
}
