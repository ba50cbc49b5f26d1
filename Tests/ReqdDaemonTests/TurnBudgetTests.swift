import Foundation
import ReqdDaemon
import ReqdProtocol
import Synchronization
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

    /// Replies counted as they arrive, from the thread that reads them.
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    @Test("a client's status is served in the middle of another's pipelined burst, a few budgets after it arrives")
    func servedDuringBurst() throws {
        let directory = TemporaryDirectory()
        let daemon = try startDaemon(in: directory)
        defer { daemon.stop() }
        let burst = 20_000
        let fd = try UnixSocket.connect(path: daemon.socketPath)
        defer { close(fd) }
        var lines = ""
        for id in 0..<burst { lines += "{\"id\":\(id),\"op\":\"hello\",\"protocol\":1}\n" }
        let bytes = Array(lines.utf8)
        let answered = Counter()
        let done = DispatchSemaphore(value: 0)
        Thread {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
                guard written > 0 else { return }
                offset += written
            }
        }.start()
        Thread {
            defer { done.signal() }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while answered.value.load(ordering: .relaxed) < burst {
                let count = read(fd, &chunk, chunk.count)
                guard count > 0 else { return }
                answered.value.add(chunk[..<count].count { $0 == 10 }, ordering: .relaxed)
            }
        }.start()
        let started = Date()
        while answered.value.load(ordering: .relaxed) == 0, Date().timeIntervalSince(started) < 10 { usleep(1_000) }
        let prober = try LineClient(path: daemon.socketPath)
        let before = answered.value.load(ordering: .relaxed)
        prober.send("{\"id\":1,\"op\":\"status\"}")
        let reply = prober.next()
        let after = answered.value.load(ordering: .relaxed)
        #expect(reply?["ok"] as? Bool == true)
        #expect(before > 0)
        // One budget per poll, in rotation: the status waits for a few of the burst's 32-line budgets.
        #expect(after - before < 2_000, "\(after - before) of the burst's replies came while the status waited")
        #expect(after < burst)
        done.wait()
        #expect(answered.value.load(ordering: .relaxed) == burst)
    }
}
