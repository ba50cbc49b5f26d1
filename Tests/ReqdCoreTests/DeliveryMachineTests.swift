import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Fixture.second
private let ms = Fixture.ms
private let configuration = Fixture.configuration
private let timeout = configuration.requestTimeoutNanos
private let id = JobID("rq_machine")

private extension Delivery {
    /// A request job (5 attempts, backoff 1 s to 10 s) with its attempt number `attempt` out since the start.
    static func inFlight(attempt: UInt32, maxAttempts: Int = 5) -> Delivery {
        var delivery = Fixture.delivery(maxAttempts: maxAttempts)
        delivery.onFailure = Box(Fixture.delivery("https://hooks.example/failed"))
        delivery.attempts = attempt
        delivery.inFlight = true
        delivery.requestDeadline = Fixture.start.advanced(by: timeout)
        return delivery
    }

    /// The request this job sends as its attempt number `attempt`.
    func send(_ attempt: UInt32) -> JobAction.WireOp {
        .send(HTTPSend(job: id, attempt: attempt, request: request.sent(by: id), parseJSON: false, keepHeaders: true))
    }

    /// `httpFinished`, with the attempt-log entry checked and taken out so the rest compares whole:
    /// every end but a hold logs the attempt, under its number.
    mutating func finished(_ attempt: UInt32, _ outcome: HTTPOutcome, at nanoseconds: Int64, seed: UInt64 = 1) -> JobAction? {
        var random = RandomSource(seed: seed)
        guard var action = httpFinished(attempt: attempt, outcome, at: reading(nanoseconds), random: &random, configuration: configuration)
        else { return nil }
        if case .unreachable = outcome {
            #expect(action.attempt == nil)
        } else {
            #expect(action.attempt?.number == Int(attempt))
        }
        action.attempt = nil
        return action
    }
}

@Suite("Delivery machine, alone")
struct DeliveryMachineTests {
    @Test("a retryable failure plans the next attempt within the backoff bound, and asks to persist the record")
    func retryPlanned() {
        var delivery = Delivery.inFlight(attempt: 3)
        #expect(
            delivery.finished(3, Fixture.answer(503), at: 1 * second)
                == JobAction(
                    notes: [JobNote(.retrying, status: 503, error: "the server answered 503")], persist: [.progress],
                    network: .reachable, result: Fixture.kept(503)))
        let planned = delivery.nextAttempt
        #expect(delivery.advance(id, at: at(1 * second), holdReason: nil, timeout: timeout) == JobAction(deadline: .set(planned)))
        #expect(
            delivery.advance(id, at: planned, holdReason: nil, timeout: timeout)
                == JobAction(wire: [delivery.send(4)], deadline: .set(planned.advanced(by: timeout))))
    }

    @Test("full jitter: after attempt 3 the wait is uniform between 0 and 4 × backoff_min")
    func fullJitter() throws {
        let waits = (0..<200 as Range<UInt64>).map { seed in
            var delivery = Delivery.inFlight(attempt: 3)
            _ = delivery.finished(3, .failure("connection refused"), at: 0, seed: seed)
            return delivery.nextAttempt.nanoseconds(since: at(0))
        }
        #expect(waits.allSatisfy { (0..<4 * second).contains($0) })
        #expect(try #require(waits.min()) < 1 * second)
        #expect(try #require(waits.max()) > 3 * second)
    }

    @Test("a 4xx other than 408, 425 and 429 fails at once, with the on_failure report", arguments: [400, 403, 404, 422])
    func clientErrorFails(status: Int) {
        var delivery = Delivery.inFlight(attempt: 1)
        #expect(
            delivery.finished(1, Fixture.answer(status), at: 1 * second)?.end
                == JobEnd(.failed, error: "the server answered \(status)", report: delivery.onFailure?.value))
    }

    @Test("408, 425 and 429 are worth another attempt", arguments: [408, 425, 429])
    func notNowRetries(status: Int) {
        var delivery = Delivery.inFlight(attempt: 1)
        let action = delivery.finished(1, Fixture.answer(status), at: 1 * second)
        #expect(action?.end == nil)
        #expect(action?.notes == [JobNote(.retrying, status: status, error: "the server answered \(status)")])
    }

    @Test("the last attempt failing makes it dead")
    func lastAttemptDies() {
        var delivery = Delivery.inFlight(attempt: 5)
        #expect(
            delivery.finished(5, .failure("connection refused"), at: 1 * second)
                == JobAction(
                    network: .reachable,
                    end: JobEnd(.dead, error: "5 attempts failed; the last: connection refused", report: delivery.onFailure?.value)))
    }

    @Test("the request timeout aborts the attempt, then plans a retry")
    func requestTimeout() {
        var delivery = Delivery.inFlight(attempt: 3)
        var random = RandomSource(seed: 1)
        #expect(delivery.timerFired(at: reading(29 * second), random: &random, configuration: configuration) == .none)
        let action = delivery.timerFired(at: reading(30 * second), random: &random, configuration: configuration)
        #expect(action.wire == [.abort(attempt: 3)])
        #expect(action.notes == [JobNote(.retrying, error: "no answer within 30s")])
        #expect(action.timedOut == [String(RequestURL.origin(delivery.request.url))], "the timeout counts against the target")
        #expect(!delivery.inFlight && delivery.attempts == 3)
    }

    @Test("unreachable gives the attempt back and holds; a held job sends nothing")
    func unreachableHolds() {
        var delivery = Delivery.inFlight(attempt: 3)
        #expect(
            delivery.finished(3, .unreachable("no route to host"), at: 1 * second)
                == JobAction(
                    deadline: .clear, notes: [JobNote(.held, error: "no route to host", reason: .unreachable)], network: .unreachable("no route to host")))
        #expect(delivery.attempts == 2 && delivery.held)
        #expect(delivery.advance(id, at: at(60 * second), holdReason: nil, timeout: timeout) == JobAction(deadline: .clear))
    }

    @Test("strand aborts the attempt in flight and gives it back; release plans the next one")
    func strandAndRelease() {
        var delivery = Delivery.inFlight(attempt: 3)
        #expect(
            delivery.strand("no route to host")
                == JobAction(
                    wire: [.abort(attempt: 3)], deadline: .clear, notes: [JobNote(.held, error: "no route to host", reason: .unreachable)],
                    network: .unreachable("no route to host")))
        #expect(delivery.attempts == 2 && !delivery.inFlight)
        #expect(delivery.release(at: at(5 * second)) == JobAction(deadline: .set(at(5 * second))))
        #expect(
            delivery.advance(id, at: at(5 * second), holdReason: nil, timeout: timeout)
                == JobAction(wire: [delivery.send(3)], deadline: .set(at(35 * second))))
    }

    @Test("an attempt due while its target is held holds the job without sending")
    func dueWhileTargetHeld() {
        var delivery = Fixture.delivery()
        #expect(
            delivery.advance(id, at: at(0), holdReason: "network unreachable", timeout: timeout)
                == JobAction(
                    deadline: .clear, notes: [JobNote(.held, error: "network unreachable", reason: .unreachable)], network: .unreachable("network unreachable")))
        #expect(delivery.attempts == 0)
    }

    @Test("a stale completion returns nil and changes nothing")
    func staleCompletion() {
        var delivery = Delivery.inFlight(attempt: 3)
        #expect(delivery.finished(2, Fixture.answer(200), at: 1 * second) == nil)
        #expect(delivery.inFlight && delivery.attempts == 3)
        _ = delivery.strand("no route to host")
        #expect(delivery.finished(3, Fixture.answer(200), at: 2 * second) == nil)
    }
}
