import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Harness.second

@Suite("A countdown's on_expire request")
struct OnExpireTests {
    private func spec(ephemeral: Bool = false) -> CountdownSpec {
        CountdownSpec(
            key: "k", durationMs: 5_000, ephemeral: ephemeral,
            onExpire: RequestSpec(method: "POST", url: "https://hooks.example/done", body: "{}", maxAttempts: 3))
    }

    @Test("at expiry the request starts as a job of its own, exactly once, in the expiry's transaction")
    func firesOnce() throws {
        var h = Harness()
        h.autoCommit = false
        _ = h.request(.registerCountdown(spec()))
        let registered = h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil))
        guard case .success(.registered(let reply))? = registered.replies.first?.result else { throw TestFailure("no reply") }
        #expect(reply.job.onExpire?.url == "https://hooks.example/done")
        let expired = h.fireAtArmedDeadline()
        let event = try #require(expired.events(.expired).first)
        let spawned = try #require(event.spawned)
        #expect(expired.sends.isEmpty, "not sent before the expiry and the request job are on disk")
        // The countdown's expiry and the request job are written before one commit barrier.
        let writes = expired.compactMap { effect -> String? in
            switch effect {
            case .persist(.progress(let id, let progress)): "progress \(id) \(progress.state.rawValue)"
            case .persist(.insert(let record)): "insert \(record.id)"
            case .commitBarrier: "barrier"
            default: nil
            }
        }
        #expect(writes == ["progress \(reply.job.id) expired", "insert \(spawned)", "barrier"])
        // Its id is already known, so a `wait` on it before the commit is held, not refused.
        #expect(h.request(.wait(WaitRequest(job: spawned))).replies.isEmpty)
        let committed = h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil))
        #expect(committed.sends.map(\.job.rawValue) == [spawned])
        #expect(committed.sends.first?.request.method == "POST")
        let job = try #require(h.scheduler.job(JobID(spawned)))
        #expect(job.delivery?.parent?.rawValue == reply.job.id)
        #expect(job.delivery?.maxAttempts == 3)
        #expect(h.fireAtArmedDeadline().sends.count <= 1)
        #expect(h.scheduler.table.headers { $0.kind == .request }.count == 1)
    }

    @Test("the request job an expiry names can be watched and cancelled by id while its row is still being written")
    func stagedSpawnWatchedAndCancelled() throws {
        for cancelling in [false, true] {
            var h = Harness()
            h.autoCommit = false
            _ = h.request(.registerCountdown(spec()))
            _ = h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil))
            let spawned = try #require(h.fireAtArmedDeadline().events(.expired).first?.spawned)
            let watched = h.request(.watch(JobSelector(job: spawned)))
            guard case .success(.watching(let watching))? = watched.replies.first?.result else {
                throw TestFailure("the watch was refused: \(watched.replies)")
            }
            #expect(watching.job?.id == spawned && watching.streaming)
            if cancelling {
                let cancel = h.request(.cancel(JobSelector(job: spawned)))
                #expect(cancel.errorCodes.isEmpty, "\(cancel.replies)")
            }
            var after: [SchedulerEffect] = []
            while !h.pendingBarriers.isEmpty { after += h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil)) }
            if cancelling {
                #expect(after.sends.isEmpty, "a cancelled job sends nothing")
                #expect(after.replies.contains { if case .success(.cancelled(let result)) = $0.result { result.cancelled == [spawned] } else { false } })
                #expect(after.events(.cancelled).first?.job == spawned)
            } else {
                let send = try #require(after.sends.first)
                let ended = h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: 200))))
                let event = try #require(ended.events.first { $0.event.type == .succeeded })
                #expect(event.to.contains { $0.connection == ConnectionID(1) && $0.watch == watched.replies.first?.id })
            }
        }
    }

    @Test("a request job started although its insert failed is written whole at its next write, until that commits")
    func unstoredSpawnWrittenWhole() throws {
        var h = Harness()
        h.autoCommit = false
        _ = h.request(.registerCountdown(spec()))
        _ = h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil))
        let expired = h.fireAtArmedDeadline()
        let spawned = try #require(expired.events(.expired).first?.spawned)
        let started = h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: "disk I/O error"))
        let send = try #require(started.sends.first, "started even though its row was not written")
        #expect(h.scheduler.commits.isUnstored(JobID(spawned)))
        func answer(_ send: HTTPSend, _ status: Int) -> [SchedulerEffect] {
            h.handle(.httpFinished(send.job, attempt: send.attempt, .response(HTTPAnswer(status: status))))
        }
        // A 503 plans a retry: the write is the whole row, and it fails too.
        let retrying = answer(send, 503)
        #expect(retrying.contains { if case .persist(.insert(let record)) = $0 { record.id == spawned } else { false } })
        _ = h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: "disk I/O error"))
        // The next attempt succeeds; its end is the whole row again, and this time it commits.
        let retry = try #require(h.fireAtArmedDeadline().sends.first)
        let succeeded = answer(retry, 200)
        #expect(succeeded.contains { if case .persist(.insert(let record)) = $0 { record.id == spawned } else { false } })
        _ = h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil))
        #expect(h.storedRecords.first { $0.id == spawned }?.state == .succeeded)
        #expect(!h.scheduler.commits.isUnstored(JobID(spawned)), "once the row is on disk, writes are column updates again")
    }

    @Test("a cancelled countdown never sends its on_expire request")
    func neverAfterCancel() {
        var h = Harness()
        _ = h.request(.registerCountdown(spec(ephemeral: true)))
        _ = h.request(.cancel(JobSelector(key: "k")))
        h.advance(10 * second)
        let fired = h.handle(.timerFired)
        #expect(fired.sends.isEmpty)
        #expect(h.scheduler.table.headers { $0.kind != .countdown }.isEmpty)
    }

    @Test("a countdown that expired while the daemon was down sends its request once after the restart")
    func afterRestart() {
        var h = Harness()
        _ = h.request(.registerCountdown(spec()))
        var (restarted, _) = h.restarted(after: 60 * second)
        let fired = restarted.handle(.timerFired)
        #expect(fired.events(.expired).first?.spawned != nil)
        #expect(fired.sends.count == 1)
    }
}
