import Foundation
import ReqdDaemon
import ReqdProtocol
import Testing

/// Clients that close their write side after their last request, as `socat` and `nc -U` do.
@Suite("Half-closed clients over a real Unix socket")
struct HalfCloseTests {
    /// Runs `body` with a fresh daemon and one client connected to it.
    private static func withClient(_ body: (Daemon, LineClient) throws -> Void) throws {
        let directory = TemporaryDirectory()
        let daemon = try startDaemon(in: directory)
        defer { daemon.stop() }
        try body(daemon, try LineClient(path: daemon.socketPath))
    }

    @Test("the last line is answered whether or not it ends with a newline, then the daemon closes", arguments: ["", "\n"])
    func lastLine(ending: String) throws {
        try Self.withClient { _, client in
            client.sendRaw(Array("{\"id\":1,\"op\":\"hello\",\"protocol\":1}\n{\"id\":2,\"op\":\"status\"}\(ending)".utf8))
            client.shutdownWrite()
            let lines = try #require(client.linesUntilClosed(), "the daemon did not close the connection")
            #expect(lines.map { $0["id"] as? Int } == [1, 2])
            #expect(lines.allSatisfy { $0["ok"] as? Bool == true })
        }
    }

    @Test("200 clients that write bad and good lines and hang up at once, unread, leave the daemon serving")
    func hangUpAtOnce() throws {
        try Self.withClient { daemon, client in
            var lines = "x\n"
            for id in 0..<100 { lines += "{\"id\":\(id),\"op\":\"status\"}\nnot json\n" }
            let bytes = Array(lines.utf8)
            for _ in 0..<200 {
                let fd = try UnixSocket.connect(path: daemon.socketPath)
                _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
                // Reset, not a half-close: the daemon's writes to it fail.
                var linger = linger(l_onoff: 1, l_linger: 0)
                setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
                close(fd)
            }
            #expect(client.call(["id": "after", "op": "status"])?["ok"] as? Bool == true)
        }
    }

    @Test("bad input at the end of input gets its error reply before the close")
    func badLastLine() throws {
        try Self.withClient { _, client in
            client.sendRaw(Array("{\"id\":3,\"op\":\"frobnicate\"}".utf8))
            client.shutdownWrite()
            let lines = try #require(client.linesUntilClosed())
            #expect(lines.count == 1)
            #expect(lines.first?.errorCode == "unknown_op")
        }
    }

    @Test("a bad line beside a request whose reply waits does not let the daemon close before that reply")
    func badLineBesideWaitingReply() throws {
        try Self.withClient { _, client in
            let id = try #require(client.call(["id": 1, "op": "register-countdown", "key": "w", "duration_ms": 300, "ephemeral": true])?.job?["id"] as? String)
            client.sendRaw(Array("{\"id\":2,\"op\":\"wait\",\"job\":\"\(id)\"}\n{\"id\":3,\"op\":\"bogus\"}\n".utf8))
            client.shutdownWrite()
            let lines = try #require(client.linesUntilClosed(), "the daemon did not close the connection")
            #expect(lines.count == 2)
            #expect(lines.first { $0["id"] as? Int == 3 }?.errorCode == "unknown_op")
            #expect(lines.first { $0["id"] as? Int == 2 }?.job?["state"] as? String == "expired")
        }
    }

    @Test("a wait is answered when the job ends, however long after the client stopped writing")
    func waitAfterHalfClose() throws {
        try Self.withClient { _, client in
            let id = try #require(client.call(["id": 1, "op": "register-countdown", "key": "w", "duration_ms": 300, "ephemeral": true])?.job?["id"] as? String)
            client.sendRaw(Array("{\"id\":2,\"op\":\"wait\",\"job\":\"\(id)\"}".utf8))
            client.shutdownWrite()
            let lines = try #require(client.linesUntilClosed())
            #expect(lines.count == 1)
            #expect(lines.first?.job?["state"] as? String == "expired")
        }
    }

    @Test("a followed job streams its events until its terminal event, then the daemon closes")
    func followAfterHalfClose() throws {
        try Self.withClient { _, client in
            client.sendRaw(Array(#"{"id":"f","op":"register-countdown","key":"f","duration_ms":300,"tick_ms":100,"ephemeral":true,"follow":true}"#.utf8))
            client.shutdownWrite()
            let lines = try #require(client.linesUntilClosed())
            #expect(lines.first?["ok"] as? Bool == true)
            #expect(lines.dropFirst().contains { $0["event"] as? String == "tick" })
            #expect(lines.last?["event"] as? String == "expired")
            #expect(lines.dropFirst().allSatisfy { $0["watch"] as? String == "f" })
        }
    }

    @Test("a scope watcher that half-closed keeps receiving events")
    func scopeWatchStaysOpen() throws {
        try Self.withClient { daemon, watcher in
            #expect(watcher.call(["id": "s", "op": "watch", "scope": "kitchen"])?.result?["streaming"] as? Bool == true)
            watcher.shutdownWrite()
            let other = try LineClient(path: daemon.socketPath)
            #expect(other.call(["id": 1, "op": "register-countdown", "key": "tea", "scope": "kitchen", "duration_ms": 60_000, "ephemeral": true])?["ok"] as? Bool == true)
            let registered = try #require(watcher.event("registered"))
            #expect(registered["watch"] as? String == "s")
            #expect(daemon.loop.inspect { $0.connectionCount } == 2)
        }
    }
}
