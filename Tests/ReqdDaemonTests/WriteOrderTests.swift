import Dispatch
import Foundation
import ReqdDaemon
import Testing

@Suite("Writes reach a connection in the order the scheduler made them, over a real Unix socket")
struct WriteOrderTests {
    /// Reads every line that arrives within `seconds`.
    private static func lines(from client: LineClient, within seconds: Double) -> [[String: Any]] {
        var lines: [[String: Any]] = []
        let end = Date().addingTimeInterval(seconds)
        while Date() < end, let line = client.next() { lines.append(line) }
        return lines
    }

    @Test("a tick made by the timer's turn before unwatch is handled goes out before the unwatch reply, and nothing after it")
    func tickThenUnwatch() throws {
        let directory = TemporaryDirectory()
        let daemon = try startDaemon(in: directory)
        defer { daemon.stop() }
        let client = try LineClient(path: directory.path + "/reqd.sock", timeoutSeconds: 1)
        let registered = try #require(
            client.call(["id": 1, "op": "register-countdown", "key": "k", "duration_ms": 60_000, "tick_ms": 200, "ephemeral": true]))
        let id = try #require((registered["result"] as? [String: Any]).flatMap { ($0["job"] as? [String: Any])?["id"] as? String })
        #expect(client.call(["id": "w", "op": "watch", "job": id])?["ok"] as? Bool == true)
        _ = try #require(client.event("tick"))

        // Force the interleaving: hold the scheduler's queue past the next tick, so the timer's turn
        // waits on it; then send unwatch, whose turn queues behind the timer's (the event loop waits
        // in `queue.sync`); then let both go. The timer's turn runs on a dispatch thread, the
        // unwatch turn on the event loop.
        let held = DispatchSemaphore(value: 0)
        daemon.loop.queue.async { held.wait() }
        usleep(300_000)
        client.send(["id": "u", "op": "unwatch", "watch": "w"])
        usleep(100_000)
        held.signal()

        let after = Self.lines(from: client, within: 0.8)
        let unwatchAt = after.firstIndex { $0["id"] as? String == "u" }
        let ticks = after.indices.filter { after[$0]["event"] as? String == "tick" }
        #expect(unwatchAt != nil, "\(after)")
        #expect(!ticks.isEmpty, "the tick made while the queue was held: \(after)")
        if let unwatchAt {
            #expect(ticks.allSatisfy { $0 < unwatchAt }, "an event arrived after unwatch answered: \(after)")
        }
    }
}
