import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Fixture.second
private let ms = Fixture.ms
private let configuration = Fixture.configuration
private let timeout = configuration.requestTimeoutNanos
private let id = JobID("gr_machine")

private extension Group {
    /// `count` pending members, `GET https://api.example/m/<index>` with `maxAttempts` each (backoff 1 s to 10 s).
    static func of(_ count: Int, concurrency: Int, maxAttempts: Int = 1, timeout: Int64? = nil, onComplete: Delivery? = nil) -> Group {
        Group(
            members: (0..<count).map { GroupMember(delivery: Fixture.delivery("https://api.example/m/\($0)", maxAttempts: maxAttempts)) },
            concurrency: concurrency, timeout: timeout, deadline: timeout.map(Fixture.start.advanced(by:)), onComplete: onComplete.map(Box.init))
    }

    /// The request of member `index`, sent with the group-wide number `number`.
    func send(_ index: Int, _ number: UInt32) -> JobAction.WireOp {
        var send = HTTPSend(job: id, attempt: number, request: members[index].delivery.request, parseJSON: false)
        send.member = index
        return .send(send)
    }

    /// The end of request `number`; a retry waits half its backoff bound.
    mutating func finished(_ number: UInt32, _ outcome: HTTPOutcome, at nanoseconds: Int64) -> JobAction? {
        httpFinished(request: number, outcome, at: reading(nanoseconds), jitter: 0.5, configuration: configuration)
    }

    mutating func timerFired(at nanoseconds: Int64) -> JobAction {
        var random = RandomSource(seed: 1)
        return timerFired(at: reading(nanoseconds), random: &random, configuration: configuration)
    }
}

/// The `member` note of a member that ended, with the group's counts after it.
private func ended(_ index: Int, _ state: MemberState, status: Int? = nil, error: String? = nil, done: Int, failures: Int) -> JobNote {
    var note = JobNote(.member, status: status, error: error, member: index, memberState: state)
    (note.done, note.failures) = (done, failures)
    return note
}

@Suite("Group machine, alone")
struct GroupMachineTests {
    @Test("never more than `concurrency` out; a freed slot starts the next member in order")
    func concurrencyCap() {
        var group = Group.of(5, concurrency: 2)
        #expect(
            group.advance(id, at: at(0), timeout: timeout)
                == JobAction(wire: [group.send(0, 1), group.send(1, 2)], deadline: .set(at(30 * second)), persist: [.member(0), .member(1)]),
            "a member's first request is stored as running")
        #expect(group.advance(id, at: at(0), timeout: timeout) == JobAction(deadline: .set(at(30 * second))))
        #expect(
            group.finished(2, Fixture.answer(200), at: 1 * second)
                == JobAction(notes: [ended(1, .succeeded, status: 200, done: 1, failures: 0)], persist: [.member(1)]))
        #expect(
            group.advance(id, at: at(1 * second), timeout: timeout)
                == JobAction(wire: [group.send(2, 3)], deadline: .set(at(30 * second)), persist: [.member(2)]))
        #expect(group.running == [0, 2])
    }

    @Test("plannedStarts names the members advance starts, in its order, through retries, answers and a limit")
    func plannedStartsMatchAdvance() {
        var group = Group.of(6, concurrency: 3, maxAttempts: 2)
        var now: Int64 = 0
        var numbers: [UInt32] = []
        for step in 0..<12 {
            let planned = group.plannedStarts(at: at(now))
            let limit = step % 3 == 0 ? 1 : Int.max
            let started = group.advance(id, at: at(now), timeout: timeout, startLimit: limit).wire.compactMap { operation -> Int? in
                guard case .send(let send) = operation else { return nil }
                numbers.append(send.attempt)
                return group.wires[send.attempt]
            }
            #expect(started == Array(planned.prefix(limit)), "step \(step)")
            // Answer the oldest request on the wire: 503 (a retry) on even steps, 200 on odd ones.
            if let number = numbers.first {
                numbers.removeFirst()
                _ = group.finished(number, Fixture.answer(step % 2 == 0 ? 503 : 200), at: now)
            }
            now += 2 * second
        }
    }

    @Test("a retrying member keeps its slot: the next member waits for it")
    func retryKeepsItsSlot() {
        var group = Group.of(2, concurrency: 1, maxAttempts: 2)
        #expect(group.advance(id, at: at(0), timeout: timeout).wire == [group.send(0, 1)])
        #expect(
            group.finished(1, Fixture.answer(503), at: 1 * second) == JobAction(persist: [.member(0)], unreportedRetries: 1),
            "counted, with no event, and its attempts stored")
        // Half the 1 s bound after the answer.
        #expect(group.advance(id, at: at(1 * second), timeout: timeout) == JobAction(deadline: .set(at(1_500 * ms))))
        #expect(
            group.advance(id, at: at(1_500 * ms), timeout: timeout)
                == JobAction(wire: [group.send(0, 2)], deadline: .set(at(31_500 * ms))))
    }

    @Test("the last member's end completes the group: succeeded only if every member did, with the on_complete report")
    func completion() {
        let report = Fixture.delivery("https://hooks.example/done")
        var allGood = Group.of(2, concurrency: 2, onComplete: report)
        _ = allGood.advance(id, at: at(0), timeout: timeout)
        #expect(allGood.finished(1, Fixture.answer(200), at: 1 * second)?.persist == [.member(0)])
        #expect(
            allGood.finished(2, Fixture.answer(204), at: 1 * second)
                == JobAction(notes: [ended(1, .succeeded, status: 204, done: 2, failures: 0)], end: JobEnd(.succeeded, report: report)))

        var oneBad = Group.of(2, concurrency: 2, onComplete: report)
        _ = oneBad.advance(id, at: at(0), timeout: timeout)
        _ = oneBad.finished(1, Fixture.answer(200), at: 1 * second)
        #expect(
            oneBad.finished(2, Fixture.answer(404), at: 1 * second)
                == JobAction(
                    notes: [ended(1, .failed, status: 404, error: "the server answered 404", done: 2, failures: 1)],
                    end: JobEnd(.failed, error: "1 of 2 members did not succeed", report: report)))
    }

    @Test("the time limit aborts running members (timed_out), marks pending ones not_started, and completes")
    func timeLimit() {
        var group = Group.of(4, concurrency: 2, timeout: 10 * second)
        #expect(group.advance(id, at: at(0), timeout: timeout).deadline == .set(at(10 * second)))
        _ = group.finished(1, Fixture.answer(200), at: 1 * second)
        #expect(group.advance(id, at: at(1 * second), timeout: timeout).wire == [group.send(2, 3)])
        #expect(group.timerFired(at: 9 * second) == .none)
        #expect(
            group.timerFired(at: 10 * second)
                == JobAction(wire: [.abort(attempt: 2), .abort(attempt: 3)], end: JobEnd(.failed, error: "3 of 4 members did not succeed")))
        #expect(group.members.map(\.state) == [.succeeded, .timedOut, .timedOut, .notStarted])
        #expect(group.onWire.isEmpty)
        #expect(group.finished(2, Fixture.answer(200), at: 11 * second) == nil)
    }

    @Test("a member left unanswered past the request timeout is aborted and ends; the next member starts")
    func memberTimeout() {
        var group = Group.of(2, concurrency: 1)
        _ = group.advance(id, at: at(0), timeout: timeout)
        #expect(
            group.timerFired(at: 30 * second)
                == JobAction(
                    wire: [.abort(attempt: 1)], notes: [ended(0, .failed, error: "no answer within 30s", done: 1, failures: 1)], persist: [.member(0)],
                    timedOut: ["https://api.example"]))
        #expect(group.advance(id, at: at(30 * second), timeout: timeout).wire == [group.send(1, 2)])
    }

    @Test("a request number no member waits for returns nil")
    func staleNumber() {
        var group = Group.of(2, concurrency: 2)
        _ = group.advance(id, at: at(0), timeout: timeout)
        #expect(group.finished(99, Fixture.answer(200), at: 1 * second) == nil)
        _ = group.finished(1, Fixture.answer(200), at: 1 * second)
        #expect(group.finished(1, Fixture.answer(200), at: 2 * second) == nil)
        #expect(group.done == 1)
    }
}
