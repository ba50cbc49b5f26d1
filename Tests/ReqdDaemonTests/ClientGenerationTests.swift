import AsyncHTTPClient
import Foundation
import ReqdCore
import ReqdTestSupport
import Synchronization
import Testing
@testable import ReqdDaemon

@Suite("Client generations across a reload of http.max_connections_per_host")
struct ClientGenerationTests {
    @Test("a raised limit makes new clients; the old ones finish their request, then are shut down")
    func retiredGenerationShutsDown() throws {
        let server = try TestHTTPServer { _ in .init(status: 200, body: "{}", delayNanos: 600_000_000) }
        defer { server.shutdown() }
        let ends = Mutex<[HTTPOutcome]>([])
        let done = DispatchSemaphore(value: 0)
        var settings = HTTPSettings()
        settings.maxConnectionsPerHost = 2
        let executor = try HTTPExecutor(settings: settings) { _, _, outcome, _ in
            ends.withLock { $0.append(outcome) }
            done.signal()
        }
        defer { executor.shutdown() }
        let request = HTTPRequestSpec(method: "GET", url: server.url("/slow"))
        executor.execute(HTTPSend(job: JobID("rq_old"), attempt: 1, request: request, parseJSON: false))
        let old = executor.currentClients

        executor.setMaxConnectionsPerHost(2)
        #expect(executor.liveGenerations == [0], "a limit within the pools keeps the clients")
        executor.setMaxConnectionsPerHost(8)
        #expect(executor.liveGenerations == [1, 0], "the old generation stays while its request is out")
        #expect(executor.currentClients.poolLimit == 8)

        executor.execute(HTTPSend(job: JobID("rq_new"), attempt: 1, request: request, parseJSON: false))
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(done.wait(timeout: .now() + 10) == .success)
        for outcome in ends.withLock({ $0 }) {
            guard case .response(let answer) = outcome else {
                Issue.record("expected an answer, got \(outcome)")
                continue
            }
            #expect(answer.status == 200)
        }
        #expect(executor.liveGenerations == [1])

        // The shutdown runs before the request's end is reported, so the old client refuses at once.
        #expect(throws: HTTPClientError.alreadyShutdown) {
            try old.direct.execute(request: HTTPClient.Request(url: server.url("/after"))).wait()
        }
        #expect(server.records(path: "/after").isEmpty)
        #expect(server.records(path: "/slow").count == 2)
    }

    @Test("an attempt aborted while it waited for its host and then sent again under the same number goes out once: the stale queued copy is skipped")
    func staleQueuedCopySkipped() throws {
        let server = try TestHTTPServer { record in
            // The first slot frees at 300 ms, the second at 600 ms, while /again (500 ms) is still out.
            .init(status: 200, body: "{}", delayNanos: record.path == "/slow1" ? 300_000_000 : record.path == "/slow2" ? 600_000_000 : 500_000_000)
        }
        defer { server.shutdown() }
        let ends = Mutex<[JobID]>([])
        let done = DispatchSemaphore(value: 0)
        var settings = HTTPSettings()
        settings.maxConnectionsPerHost = 2
        let executor = try HTTPExecutor(settings: settings) { job, _, _, _ in
            ends.withLock { $0.append(job) }
            done.signal()
        }
        defer { executor.shutdown() }
        for path in ["/slow1", "/slow2"] {
            executor.execute(HTTPSend(job: JobID("rq" + path.dropFirst()), attempt: 1, request: HTTPRequestSpec(method: "GET", url: server.url(path)), parseJSON: false))
        }
        let again = HTTPSend(job: JobID("rq_again"), attempt: 1, request: HTTPRequestSpec(method: "GET", url: server.url("/again")), parseJSON: false)
        executor.execute(again)
        // A held job gives its attempt back: the abort, then the same attempt number once more,
        // while the first copy still waits in the host's queue.
        executor.abort(job: again.job, attempt: again.attempt)
        executor.execute(again)
        for _ in 0..<3 { #expect(done.wait(timeout: .now() + 10) == .success) }
        // Time for a second copy to reach the server, had one started when the second slot freed.
        usleep(500_000)
        #expect(server.records(path: "/again").count == 1)
        #expect(ends.withLock { $0 }.map(\.rawValue).sorted() == ["rq_again", "rqslow1", "rqslow2"])
    }
}
