import ReqdProtocol
import Testing
@testable import ReqdCore

/// A durable countdown that has not been committed yet.
private func job(_ id: String) -> Job {
    Job(header: Fixture.header(id), work: .countdown(Countdown(deadline: at(10 * Fixture.second), tick: Fixture.second, lateBy: nil)))
}

private let reply = PendingCommit.reply(ConnectionID(1), .number(9), .success(.unwatched(UnwatchResult(removed: 0))))

/// The job a pending commit starts, if it starts one.
private func started(_ pending: PendingCommit?) -> JobID? {
    switch pending {
    case .registration(let job, _, _, _), .spawn(let job): job.id
    case .reply, .duplicate, .stored, nil: nil
    }
}

@Suite("CommitGate, alone")
struct CommitGateTests {
    @Test("tokens are unique and increasing, whatever they close")
    func tokensIncrease() {
        var gate = CommitGate()
        let tokens = [
            gate.stage(job("cd_a"), .spawn(job("cd_a"))), gate.barrier(reply), gate.stage(job("cd_b"), .spawn(job("cd_b"))),
            gate.barrier(reply),
        ].map(\.rawValue)
        #expect(tokens == tokens.sorted() && Set(tokens).count == tokens.count)
    }

    @Test("a staged job is visible until its own token completes")
    func stagedUntilCommitted() {
        var gate = CommitGate()
        let registered = gate.stage(job("cd_a"), .registration(job("cd_a"), ConnectionID(1), .number(1), follow: false))
        let spawned = gate.stage(job("cd_b"), .spawn(job("cd_b")))
        let other = gate.barrier(reply)
        #expect(gate.isStaged(JobID("cd_a")) && gate.staged(JobID("cd_a"))?.id == JobID("cd_a"))
        #expect(started(gate.complete(other)) == nil)
        #expect(gate.stagedCount == 2)
        #expect(started(gate.complete(registered)) == JobID("cd_a"))
        #expect(!gate.isStaged(JobID("cd_a")) && gate.staged(JobID("cd_a")) == nil)
        #expect(started(gate.complete(spawned)) == JobID("cd_b"))
        #expect(gate.stagedCount == 0)
    }

    @Test("completing a token twice returns nil the second time")
    func completeOnce() {
        var gate = CommitGate()
        let token = gate.stage(job("cd_a"), .spawn(job("cd_a")))
        #expect(gate.complete(token) != nil)
        #expect(gate.complete(token) == nil)
        #expect(gate.complete(CommitToken(999)) == nil)
    }
}
