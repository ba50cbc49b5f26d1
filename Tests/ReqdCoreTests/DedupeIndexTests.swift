import ReqdProtocol
import Testing
@testable import ReqdCore

private func key(owner: UInt32 = 1000, _ url: String = "https://api.example/orders") -> DedupeKey {
    DedupeKey(owner: owner, request: Fixture.get(url), headerNames: [], key: nil, scope: nil, ephemeral: false, boundTo: nil)
}

@Suite("DedupeIndex, alone")
struct DedupeIndexTests {
    @Test("a remembered fingerprint finds its job until the job is forgotten")
    func rememberAndForget() {
        var index = DedupeIndex()
        index.remember(key(), job: JobID("rq_a"))
        #expect(index.job(for: key()) == JobID("rq_a"))
        #expect(index.job(for: key(owner: 1001)) == nil)
        #expect(index.job(for: key("https://API.example:443/orders")) == JobID("rq_a"))
        #expect(index.forget(JobID("rq_a")) == true)
        #expect(index.job(for: key()) == nil && index.isEmpty)
        #expect(index.forget(JobID("rq_a")) == false)
    }

    @Test("forgetting a job whose fingerprint a newer job took over leaves the newer one")
    func takeover() {
        var index = DedupeIndex()
        index.remember(key(), job: JobID("rq_old"))
        index.remember(key(), job: JobID("rq_new"))
        #expect(index.forget(JobID("rq_old")) == true)
        #expect(index.job(for: key()) == JobID("rq_new"))
        #expect(index.forget(JobID("rq_new")) == true)
        #expect(index.isEmpty)
    }
}
