import ReqdProtocol
import Testing
@testable import ReqdCore

@Suite("Scopes, connection-bound jobs and latest-wins on the injected clock")
struct HygieneTests {
    @Test("cancel --scope reaches every kind: the countdown stops, requests in flight are aborted")
    func scopeCancelAllKinds() throws {
        var h = Harness()
        let countdown = h.countdown(key: "c", seconds: 60, scope: "page")
        let (poll, pollEffects) = h.poll(
            PollSpec(url: "https://api.example/jobs/7", everyMs: 1_000, until: "status == 200", scope: "page"))
        let (request, requestEffects) = h.submitted(submitSpec(scope: "page"))
        let (other, _) = h.submitted(submitSpec(url: "https://api.example/other", scope: "elsewhere"))
        #expect(pollEffects.sends.count == 1 && requestEffects.sends.count == 1)
        let effects = h.request(.cancel(JobSelector(scope: "page")))
        guard case .success(.cancelled(let result))? = effects.replies.first?.result else { throw TestFailure("no reply") }
        #expect(result.count == 3)
        #expect(Set(result.cancelled) == [countdown.id.rawValue, poll.rawValue, request.job.id])
        #expect(Set(effects.aborts.map(\.0.rawValue)) == [poll.rawValue, request.job.id])
        #expect(h.scheduler.job(countdown.id)?.state == .cancelled)
        #expect(h.scheduler.job(JobID(other.job.id))?.state == .active)
        // Late answers of the aborted requests change nothing.
        #expect(h.handle(.httpFinished(JobID(request.job.id), attempt: 1, .response(HTTPAnswer(status: 200)))).events.isEmpty)
    }

    @Test("a scope cancel of 1,000,000 jobs answers with their count and 1,000 of their ids, truncated")
    func millionJobScopeCancel() throws {
        var configuration = SchedulerConfiguration()
        configuration.userLimits.activeJobs = 2_000_000
        var h = Harness(configuration: configuration)
        let total = 1_000_000
        var made = Set<String>()
        for index in 0..<total {
            let effects = h.request(
                .registerCountdown(CountdownSpec(key: "k\(index)", durationMs: 3_600_000, scope: "all", ephemeral: true)))
            if case .success(.registered(let reply))? = effects.replies.first?.result { made.insert(reply.job.id) }
        }
        #expect(made.count == total)
        #expect(h.scheduler.activeJobCount == total)
        let effects = h.request(.cancel(JobSelector(scope: "all")))
        guard case .success(.cancelled(let result))? = effects.replies.first?.result else { throw TestFailure("no reply") }
        #expect(result.count == total)
        #expect(result.cancelled.count == CancelResult.maxListedIDs)
        #expect(Set(result.cancelled).count == CancelResult.maxListedIDs && Set(result.cancelled).isSubset(of: made))
        #expect(result.truncated == true)
        #expect(h.scheduler.activeJobCount == 0)
        let encoded = try CompactJSONEncoder().encode(Response(id: .number(1), outcome: .success(.cancelled(result))))
        #expect(encoded.count < 20_000, "the reply is \(encoded.count) bytes")
    }

    @Test("closing a connection cancels only the jobs bound to it, with reason connection_closed")
    func connectionBound() throws {
        var h = Harness()
        let bound = h.submitted(submitSpec(bind: true), connection: 1)
        let boundCountdown = h.request(
            .registerCountdown(CountdownSpec(key: "b", durationMs: 60_000, bindConnection: true)), connection: 1)
        let free = h.submitted(submitSpec(url: "https://api.example/free"), connection: 1)
        let otherConnection = h.submitted(submitSpec(url: "https://api.example/third", bind: true), connection: 2)
        #expect(bound.reply.job.durable == false)
        #expect(bound.reply.job.boundToConnection == true)
        #expect(boundCountdown.errorCodes.isEmpty)
        let closed = h.handle(.connectionClosed(ConnectionID(1)))
        let cancelled = closed.events(.cancelled)
        #expect(cancelled.count == 2)
        #expect(cancelled.allSatisfy { $0.reason == .connectionClosed })
        #expect(closed.aborts.map(\.0.rawValue) == [bound.reply.job.id])
        #expect(h.scheduler.job(JobID(free.reply.job.id))?.state == .active)
        #expect(h.scheduler.job(JobID(otherConnection.reply.job.id))?.state == .active)
        #expect(!h.persisted.contains { $0.jobID == bound.reply.job.id })
    }

    @Test("latest wins in registration order, not commit order: durable registrations still waiting for their commit when a later ephemeral one with their key starts each end superseded by it once committed, and the later one keeps running and its key")
    func latestWinsWhileStaged() throws {
        var h = Harness()
        h.autoCommit = false
        _ = h.request(.registerCountdown(CountdownSpec(key: "k", durationMs: 60_000)))
        _ = h.request(.registerCountdown(CountdownSpec(key: "k", durationMs: 60_000)))
        let later = h.request(.registerCountdown(CountdownSpec(key: "k", durationMs: 30_000, ephemeral: true)))
        guard case .success(.registered(let laterReply)) = later.replies.first?.result else {
            Issue.record("no reply to the ephemeral registration: \(later)")
            return
        }
        let newer = laterReply.job.id
        #expect(h.pendingBarriers.count == 2)
        for _ in 0..<2 {
            let done = h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil))
            guard case .success(.registered(let reply)) = done.replies.first?.result else {
                Issue.record("no reply once committed: \(done)")
                continue
            }
            #expect(reply.replaced == nil, "it replaced nothing: the later job holds the key")
            #expect(reply.job.state == .cancelled && reply.job.reason == .superseded && reply.job.replacedBy == newer, "\(reply.job)")
            #expect(done.events(.cancelled).map(\.job) == [reply.job.id], "only the earlier job ends")
            #expect(h.scheduler.job(JobID(newer))?.state == .active)
        }
        // The later job still holds the key: the next registration with it replaces that one.
        let next = h.countdown(key: "k", seconds: 10, ephemeral: true)
        #expect(next.reply.replaced == newer)
    }

    @Test("a cancel by scope or by key ends the durable registrations still waiting for their commits: they start cancelled, send nothing, and the disk says so before the cancel's reply")
    func cancelSeesStaged() throws {
        for byKey in [false, true] {
            var h = Harness()
            h.autoCommit = false
            let staged = h.request(.submit(submitSpec(key: "k", scope: "page")))
            #expect(staged.replies.isEmpty, "a durable registration is answered after its commit")
            let selector = byKey ? JobSelector(key: "k") : JobSelector(scope: "page")
            let cancel = h.request(.cancel(selector))
            #expect(cancel.replies.isEmpty, "the cancel's reply waits for the commit that records its end")
            #expect(h.pendingBarriers.count == 2)
            let registered = h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil))
            guard case .success(.registered(let reply)) = registered.replies.first?.result else {
                Issue.record("no reply to the registration: \(registered)")
                continue
            }
            #expect(reply.job.state == .cancelled && reply.job.reason == .requested, "\(reply.job)")
            #expect(registered.sends.isEmpty, "nothing goes on the wire")
            let done = h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil))
            guard case .success(.cancelled(let result)) = done.replies.first?.result else {
                Issue.record("no reply to the cancel: \(done)")
                continue
            }
            #expect(h.storedRecords.first { $0.id == reply.job.id }?.state == .cancelled, "on disk once the cancel is answered")
            #expect(result.cancelled == [reply.job.id])
            #expect(h.scheduler.activeJobCount == 0)
            #expect(h.scheduler.job(JobID(reply.job.id))?.state == .cancelled)
        }
    }

    @Test("a connection-bound request job that is retried is bound again, so its connection's close cancels it; one whose connection has closed is not retried")
    func retryKeepsTheBinding() throws {
        var h = Harness()
        let bound = h.submitted(submitSpec(bind: true), connection: 1)
        let id = JobID(bound.reply.job.id)
        _ = h.handle(.httpFinished(id, attempt: 1, .response(HTTPAnswer(status: 404))))
        #expect(h.scheduler.job(id)?.state == .failed)
        let retried = h.request(.retry(RetryRequest(job: id.rawValue)), connection: 1)
        #expect(retried.errorCodes.isEmpty, "\(retried)")
        #expect(h.scheduler.job(id)?.state == .active)
        let closed = h.handle(.connectionClosed(ConnectionID(1)))
        #expect(closed.events(.cancelled).map(\.job) == [id.rawValue])
        #expect(h.scheduler.job(id)?.reason == .connectionClosed)

        let orphan = h.submitted(submitSpec(url: "https://api.example/other", bind: true), connection: 2)
        let orphanID = JobID(orphan.reply.job.id)
        _ = h.handle(.httpFinished(orphanID, attempt: 1, .response(HTTPAnswer(status: 404))))
        _ = h.handle(.connectionClosed(ConnectionID(2)))
        let refused = h.request(.retry(RetryRequest(job: orphanID.rawValue)), connection: 3)
        #expect(refused.errorCodes == [.badField], "\(refused)")
        #expect(h.scheduler.job(orphanID)?.state == .failed, "a refused retry changes nothing")
    }

    @Test("latest wins across kinds: the old job is superseded and its request aborted before the new one starts")
    func latestWins() throws {
        var h = Harness()
        let old = h.submitted(submitSpec(url: "https://api.example/search?q=a", key: "search"))
        let (poll, _) = h.poll(PollSpec(url: "https://api.example/p", everyMs: 1_000, until: "status == 200", key: "watch"))
        let new = h.submitted(submitSpec(url: "https://api.example/search?q=ab", key: "search"))
        #expect(new.reply.replaced == old.reply.job.id)
        let order = new.effects.compactMap { effect -> String? in
            switch effect {
            case .abort(let id, _): "abort \(id)"
            case .send(let send): "send \(send.job)"
            case .reply: "reply"
            case .deliver(let event, _) where event.type == .cancelled: "cancelled \(event.job)"
            default: nil
            }
        }
        // The new job's reply comes before what its start does, so a follower reads it first.
        #expect(order == ["abort \(old.reply.job.id)", "cancelled \(old.reply.job.id)", "reply", "send \(new.reply.job.id)"])
        let oldJob = try #require(h.scheduler.job(JobID(old.reply.job.id)))
        #expect(oldJob.state == .cancelled && oldJob.reason == .superseded)
        // The old request's late answer emits nothing: no event of the old job after the new reply.
        #expect(h.handle(.httpFinished(JobID(old.reply.job.id), attempt: 1, .response(HTTPAnswer(status: 200)))).events.isEmpty)
        // A countdown with a poll's key replaces the poll: keys are shared by every kind.
        let countdown = h.countdown(key: "watch", seconds: 10)
        #expect(countdown.reply.replaced == poll.rawValue)
    }

    @Test("a job another daemon ended (its key taken by a newer job there, or cancelled there) ends here: its request is aborted, its watchers hear why, and its late answer changes nothing")
    func endedElsewhere() throws {
        var h = Harness()
        let replaced = h.submitted(submitSpec(url: "https://api.example/search?q=a", key: "search"))
        let cancelled = h.countdown(key: "tea", seconds: 60)
        #expect(replaced.effects.sends.count == 1)
        let elsewhere = JobID("rq_elsewhere1")
        let effects = h.handle(.endedElsewhere(JobID(replaced.reply.job.id), replacedBy: elsewhere))
        #expect(effects.aborts.map(\.0.rawValue) == [replaced.reply.job.id])
        let job = try #require(h.scheduler.job(JobID(replaced.reply.job.id)))
        #expect(job.state == .cancelled && job.reason == .superseded && job.replacedBy == elsewhere)
        #expect(h.handle(.httpFinished(JobID(replaced.reply.job.id), attempt: 1, .response(HTTPAnswer(status: 200)))).events.isEmpty)
        _ = h.handle(.endedElsewhere(cancelled.id, replacedBy: nil))
        let countdown = try #require(h.scheduler.job(cancelled.id))
        #expect(countdown.state == .cancelled && countdown.reason == .requested)
        // The key is free here again: a new job with it replaces nothing on this daemon.
        let again = h.countdown(key: "tea", seconds: 60)
        #expect(again.reply.replaced == nil)
        // A notice for a job that already ended, or that this daemon never had, changes nothing.
        #expect(h.handle(.endedElsewhere(cancelled.id, replacedBy: nil)).events.isEmpty)
        #expect(h.handle(.endedElsewhere(JobID("cd_unknown001"), replacedBy: nil)).events.isEmpty)
    }
}
