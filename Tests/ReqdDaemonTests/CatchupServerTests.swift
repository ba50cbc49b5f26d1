import Foundation
import ReqdTestSupport
import Testing

@testable import ReqdDaemon

@Suite("Overdue hooks after a restart, against a real HTTP server and SQLite", .serialized)
struct CatchupServerTests {
    @Test("300 durable countdowns that expire while the daemon is down: after the restart all 300 hooks arrive once, 100 a second (request.catchup_rate)")
    func hooksSpreadAfterRestart() throws {
        let fixture = try ServerFixture(
            timeoutSeconds: 30, configure: { $0.scheduler.catchupRate = 100 },
            handler: { _ in TestHTTPServer.Reply(body: "{}") })
        for index in 0..<300 {
            let reply = try fixture.call([
                "op": "register-countdown", "key": "k\(index)", "duration_ms": 1_000,
                "on_expire": ["method": "POST", "url": fixture.server.url("/hook"), "body": "{\"n\":\(index)}"],
            ])
            #expect(reply.job != nil, "registration refused: \(reply)")
        }
        try fixture.restart { usleep(2_500_000) }
        var hooks: [TestHTTPServer.Record] = []
        for _ in 0..<300 where hooks.count < 300 {
            usleep(50_000)
            hooks = fixture.server.records(path: "/hook")
        }
        #expect(hooks.count == 300)
        #expect(Set(hooks.map(\.body)).count == 300, "each hook once")
        let starts = hooks.map(\.start).sorted()
        let span = Double(starts.last! - starts.first!) / 1e9
        // 299 gaps of 10 ms: 2.99 s, and not much more.
        #expect(span >= 2.9 && span <= 4.5, "spread over \(span) s")
        var busiest = 0
        var low = 0
        for high in starts.indices {
            while starts[high] - starts[low] >= 1_000_000_000 { low += 1 }
            busiest = max(busiest, high - low + 1)
        }
        #expect(busiest <= 105, "\(busiest) hooks arrived within one second")
    }
}
