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
}
