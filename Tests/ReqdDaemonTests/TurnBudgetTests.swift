import Foundation
import ReqdDaemon
import Testing

@Suite("A turn's budget, over a real Unix socket")
struct TurnBudgetTests {
    @Test("5,000 requests in one write are handled a budget per turn, and every one is answered in order")
    func pipelinedWrite() throws {
        let directory = TemporaryDirectory()
        let daemon = try startDaemon(in: directory)
        defer { daemon.stop() }
        let client = try LineClient(path: daemon.socketPath)
        var lines = ""
        for id in 0..<5_000 { lines += "{\"id\":\(id),\"op\":\"hello\",\"protocol\":1}\n" }
        client.sendRaw(Array(lines.utf8))
        var ids: [Int] = []
        while ids.count < 5_000, let reply = client.next() {
            ids.append(reply["id"] as? Int ?? -1)
        }
        #expect(ids == Array(0..<5_000))
        let largest = daemon.loop.largestTurn
        #expect(largest <= SchedulerLoop.defaultTurnBudget)
        #expect(largest > 1)
    }
}
