import ReqdProtocol
import Testing
@testable import ReqdCore

private let second = Harness.second

@Suite("Dedupe window on the injected clock")
struct DedupeTests {
    @Test("an identical request inside the window returns the existing job; the target sees one request")
    func hitInsideWindow() {
        var h = Harness()
        let first = h.submitted(submitSpec())
        h.advance(3 * second - 1)
        let second = h.submitted(submitSpec())
        #expect(second.reply.deduplicated == true)
        #expect(second.reply.job.id == first.reply.job.id)
        #expect(second.effects.sends.isEmpty)
        #expect(h.scheduler.activeJobCount == 1)
    }

    @Test("a duplicate gets only the job it would have made: the same key, scope, durability and bound connection")
    func jobSettingsCount() {
        var h = Harness()
        _ = h.handle(.connectionOpened(ConnectionID(4), Peer(uid: 1000, pid: 13)))
        let bound = h.submitted(submitSpec(bind: true))
        #expect(h.submitted(submitSpec(bind: true)).reply.job.id == bound.reply.job.id, "the same connection's repeat is a duplicate")
        // The same user on another connection: a job of its own, which the first client's exit leaves.
        let other = h.submitted(submitSpec(bind: true), connection: 4)
        #expect(other.reply.deduplicated == nil)
        #expect(other.effects.sends.count == 1)
        #expect(h.submitted(submitSpec()).reply.deduplicated == nil, "an unbound one is not the bound one")
        #expect(h.submitted(submitSpec(ephemeral: true)).reply.deduplicated == nil, "an ephemeral one is not the durable one")
        let durable = h.submitted(submitSpec(scope: "page"))
        #expect(durable.reply.deduplicated == nil, "a job in a scope is not one outside it")
        #expect(h.submitted(submitSpec(key: "k")).reply.deduplicated == nil, "a job with a key is not one without")
        #expect(h.submitted(submitSpec(scope: "page")).reply.job.id == durable.reply.job.id)
        _ = h.handle(.connectionClosed(ConnectionID(1)))
        #expect(h.scheduler.job(JobID(bound.reply.job.id))?.state == .cancelled)
        #expect(h.scheduler.job(JobID(other.reply.job.id))?.state == .active)
    }

    @Test("the window counts from the first registration: a duplicate does not extend it")
    func windowFromFirst() {
        var h = Harness()
        let first = h.submitted(submitSpec())
        h.advance(2 * second)
        #expect(h.submitted(submitSpec()).reply.deduplicated == true)
        h.advance(1 * second)
        _ = h.handle(.timerFired)
        let third = h.submitted(submitSpec())
        #expect(third.reply.deduplicated == nil)
        #expect(third.reply.job.id != first.reply.job.id)
        #expect(third.effects.sends.count == 1)
    }

    @Test("entries expire through the one timer: the heap holds the window's end")
    func expiryThroughTimer() {
        var h = Harness()
        let start = h.now.instant
        let (reply, _) = h.submitted(submitSpec())
        _ = h.handle(.httpFinished(JobID(reply.job.id), attempt: 1, .response(HTTPAnswer(status: 200))))
        #expect(h.armed == start.advanced(by: 3 * second))
        _ = h.fireAtArmedDeadline()
        #expect(h.armed == nil)
        #expect(h.scheduler.dedupe.isEmpty)
    }

    /// The base request of the fingerprint cases, with one thing changed.
    private static func like(
        method: String = "POST", url: String = "https://api.example/orders", body: String = "{\"sku\":7}",
        trace: String = "1", authorization: String = "Bearer one", window: Int64? = nil
    ) -> SubmitSpec {
        submitSpec(
            method: method, url: url, body: body, headers: ["X-Trace: \(trace)", "Authorization: \(authorization)"],
            window: window, dedupeHeaders: ["authorization"])
    }

    @Test("what counts in the fingerprint", arguments: [
        // (second request, deduplicated?)
        (like(), true),
        (like(url: "HTTPS://API.example:443/orders"), true),
        (like(trace: "2"), true),
        (like(url: "https://api.example/orders?b=2&a=1"), false),
        (like(method: "PUT"), false),
        (like(body: "{\"sku\":8}"), false),
        (like(authorization: "Bearer other"), false),
        (like(window: 0), false),
    ])
    func fingerprint(second: SubmitSpec, deduplicated: Bool) {
        var h = Harness()
        _ = h.submitted(Self.like())
        #expect((h.submitted(second).reply.deduplicated == true) == deduplicated)
    }

    @Test("query parameters are sorted, so their order does not matter")
    func sortedQuery() {
        var h = Harness()
        _ = h.submitted(submitSpec(url: "https://api.example/search?q=a&page=2"))
        #expect(h.submitted(submitSpec(url: "https://api.example/search?page=2&q=a#top")).reply.deduplicated == true)
        #expect(RequestURL.normalized("HTTP://Example.ORG:80?b=1&a=2&a=1") == "http://example.org/?a=2&a=1&b=1")
        #expect(RequestURL.normalized("https://u@h.example:8443/p") == "https://u@h.example:8443/p")
    }

    @Test("other owners never share a dedupe entry")
    func perOwner() {
        var h = Harness()
        _ = h.submitted(submitSpec(), connection: 1)
        #expect(h.submitted(submitSpec(), connection: 2).reply.deduplicated == nil)
    }

    @Test("a duplicate of a job still waiting for its commit is answered after that commit")
    func duplicateOfStaged() {
        var h = Harness()
        h.autoCommit = false
        _ = h.request(.submit(submitSpec()))
        let duplicate = h.request(.submit(submitSpec()))
        #expect(duplicate.replies.isEmpty)
        var replies: [RegisterResult] = []
        while !h.pendingBarriers.isEmpty {
            for reply in h.handle(.commitCompleted(h.pendingBarriers.removeFirst(), failure: nil)).replies {
                if case .success(.registered(let result)) = reply.result { replies.append(result) }
            }
        }
        #expect(replies.count == 2)
        #expect(replies.map(\.deduplicated) == [nil, true])
        #expect(Set(replies.map(\.job.id)).count == 1)
    }

    @Test("retention ending before the window does still answers a duplicate with the ended job, by time and by count")
    func windowOutlivesRetention() {
        for byCount in [false, true] {
            var configuration = SchedulerConfiguration()
            if byCount { configuration.maxRetainedJobs = 1 } else { configuration.retentionNanos = second }
            var h = Harness(configuration: configuration)
            let first = h.submitted(submitSpec(window: 60_000))
            let id = first.reply.job.id
            _ = h.handle(.httpFinished(JobID(id), attempt: 1, .response(HTTPAnswer(status: 200))))
            if byCount {
                // Another job ends after it: one ended job kept, so the first goes.
                let other = h.submitted(submitSpec(url: "https://api.example/other", window: 0))
                _ = h.handle(.httpFinished(JobID(other.reply.job.id), attempt: 1, .response(HTTPAnswer(status: 200))))
            }
            h.advance(2 * second)
            _ = h.handle(.timerFired)
            #expect(h.request(.status(StatusRequest(job: id))).errorCodes == [.unknownJob], "forgotten by retention")
            let duplicate = h.submitted(submitSpec(window: 60_000))
            #expect(duplicate.reply.deduplicated == true)
            #expect(duplicate.reply.job.id == id)
            #expect(duplicate.reply.job.state == .succeeded)
            #expect(duplicate.effects.sends.isEmpty, "the target sees one request")
            // The window's end lets the ended job go, and the same request makes a new one.
            h.advance(58 * second)
            _ = h.handle(.timerFired)
            #expect(h.scheduler.dedupe.forgottenJob(JobID(id)) == nil)
            let later = h.submitted(submitSpec(window: 60_000))
            #expect(later.reply.deduplicated == nil)
            #expect(later.effects.sends.count == 1)
        }
    }

    @Test("a cancelled job's fingerprint is forgotten, so the same request can be sent again")
    func cancelForgets() {
        var h = Harness()
        let first = h.submitted(submitSpec())
        _ = h.request(.cancel(JobSelector(job: first.reply.job.id)))
        #expect(h.submitted(submitSpec()).reply.deduplicated == nil)
    }
}
