import Foundation
@testable import ReqdDaemon
import ReqdProtocol
import Testing

@Suite("Daemon over a real Unix socket")
struct SocketServerTests {
    @Test("register, watch from another connection, replace and cancel")
    func registerWatchReplaceCancel() throws {
        let directory = TemporaryDirectory()
        let daemon = try startDaemon(in: directory)
        defer { daemon.stop() }
        let client = try LineClient(path: daemon.socketPath)
        let watcher = try LineClient(path: daemon.socketPath)

        let hello = try #require(client.call(["id": 0, "op": "hello", "protocol": 1]))
        #expect(hello.result?["protocol"] as? Int == 1)
        #expect(hello.result?["uid"] as? Int == Int(getuid()))

        let first = try #require(client.call(["id": 1, "op": "register-countdown", "key": "k", "duration_ms": 1_500, "tick_ms": 100]))
        let firstID = try #require(first.job?["id"] as? String)
        let watch = try #require(watcher.call(["id": "w", "op": "watch", "job": firstID]))
        #expect(watch.result?["streaming"] as? Bool == true)
        let tick = try #require(watcher.event("tick"))
        #expect(tick["watch"] as? String == "w")
        #expect(tick["job"] as? String == firstID)
        // The tick falls where a whole number of 100 ms is left; the event reports the time left
        // when it fired, which on a loaded machine can be a few ms after that instant.
        let remaining = try #require(tick["remaining_ms"] as? Int)
        #expect(remaining < 1_500)
        #expect((100 - remaining % 100) % 100 <= 10, "tick at \(remaining) ms left, not just after a whole 100 ms")

        let second = try #require(client.call(["id": 2, "op": "register-countdown", "key": "k", "duration_ms": 60_000, "follow": true]))
        #expect(second.result?["replaced"] as? String == firstID)
        let secondID = try #require(second.job?["id"] as? String)
        let superseded = try #require(watcher.event("cancelled"))
        #expect(superseded["reason"] as? String == "superseded")
        #expect(superseded["replaced_by"] as? String == secondID)

        let cancel = try #require(client.call(["id": 3, "op": "cancel", "key": "k"]))
        #expect(cancel.result?["cancelled"] as? [String] == [secondID])
        let cancelled = try #require(client.next())
        #expect(cancelled["event"] as? String == "cancelled")
        #expect(cancelled["watch"] as? Int == 2)

        let list = try #require(client.call(["id": 4, "op": "list", "state": "active"]))
        #expect((list.result?["jobs"] as? [Any])?.isEmpty == true)
    }

    @Test("wait replies when the countdown expires, with late_by")
    func waitForExpiry() throws {
        let directory = TemporaryDirectory()
        let daemon = try startDaemon(in: directory)
        defer { daemon.stop() }
        let client = try LineClient(path: daemon.socketPath)
        let registered = try #require(client.call(["id": 1, "op": "register-countdown", "key": "w", "duration_ms": 300, "ephemeral": true]))
        let id = try #require(registered.job?["id"] as? String)
        let waited = try #require(client.call(["id": 2, "op": "wait", "job": id]))
        #expect(waited.job?["state"] as? String == "expired")
        #expect(waited.job?["late_by_ms"] is Double)
    }

    static let malformed: [(String, String)] = [
        ("{bad", "bad_json"),
        ("[1,2]", "bad_json"),
        ("\"just a string\"", "bad_json"),
        ("{}", "missing_field"),
        ("{\"id\":1}", "missing_field"),
        ("{\"id\":true,\"op\":\"status\"}", "bad_field"),
        ("{\"id\":1,\"op\":\"frobnicate\"}", "unknown_op"),
        ("{\"id\":1,\"op\":\"register-countdown\",\"key\":\"k\"}", "missing_field"),
        ("{\"id\":1,\"op\":\"register-countdown\",\"key\":5,\"duration_ms\":1000}", "bad_field"),
        ("{\"id\":1,\"op\":\"register-countdown\",\"key\":\"k\",\"duration_ms\":\"ten\"}", "bad_field"),
        ("{\"id\":1,\"op\":\"register-countdown\",\"key\":\"k\",\"duration_ms\":-5}", "bad_duration"),
        ("{\"id\":1,\"op\":\"register-countdown\",\"key\":\"k\",\"duration_ms\":99999999999999999}", "bad_duration"),
        ("{\"id\":1,\"op\":\"register-countdown\",\"key\":\"k\",\"duration_ms\":1000,\"tick_ms\":0}", "bad_duration"),
        ("{\"id\":1,\"op\":\"register-countdown\",\"key\":\"k\",\"duration_ms\":1000,\"colour\":\"red\"}", "unknown_field"),
        ("{\"id\":1,\"op\":\"register-countdown\",\"key\":\"k\",\"duration_ms\":1000,\"until\":\"2030-01-01T00:00:00Z\"}", "conflicting_fields"),
        ("{\"id\":1,\"op\":\"register-countdown\",\"key\":\"k\",\"until\":\"yesterday\"}", "bad_field"),
        ("{\"id\":1,\"op\":\"register-countdown\",\"key\":\"k\",\"until\":\"2300-01-01T00:00:00Z\"}", "bad_field"),
        ("{\"id\":1,\"op\":\"register-countdown\",\"key\":\"\",\"duration_ms\":1000}", "bad_field"),
        ("{\"id\":1,\"op\":\"status\",\"job\":\"cd_nosuchjob0\"}", "unknown_job"),
        ("{\"id\":1,\"op\":\"wait\",\"job\":\"cd_nosuchjob0\"}", "unknown_job"),
        ("{\"id\":1,\"op\":\"cancel\"}", "missing_field"),
        ("{\"id\":1,\"op\":\"cancel\",\"job\":\"a\",\"scope\":\"b\"}", "conflicting_fields"),
        ("{\"id\":1,\"op\":\"hello\",\"protocol\":99}", "unsupported_protocol"),
        ("{\"id\":1,\"op\":\"list\",\"state\":\"sleeping\"}", "bad_field"),
        ("{\"id\":1,\"op\":\"list\",\"limit\":0}", "bad_field"),
    ]

    @Test("malformed input gets a stable error code, changes nothing, and the daemon keeps serving everyone")
    func malformedInputs() throws {
        let directory = TemporaryDirectory()
        let daemon = try startDaemon(in: directory) { $0.maxLineBytes = 64 * 1024 }
        defer { daemon.stop() }
        let bystander = try LineClient(path: daemon.socketPath)
        let bystanderJob = try #require(bystander.call(["id": 1, "op": "register-countdown", "key": "b", "duration_ms": 60_000, "follow": true]))
        #expect(bystanderJob.job != nil)
        let client = try LineClient(path: daemon.socketPath)
        for (line, code) in Self.malformed {
            client.send(line)
            let reply = try #require(client.reply(), "no reply to \(line)")
            #expect(reply["ok"] as? Bool == false, "\(line)")
            #expect(reply.errorCode == code, "\(line) gave \(reply.errorCode ?? "nothing")")
            let status = try #require(client.call(["id": "s", "op": "status"]))
            #expect(status["ok"] as? Bool == true)
        }
        // A line over the limit, sent in pieces, is refused without closing the connection.
        client.sendRaw(Array(repeating: UInt8(ascii: "x"), count: 100 * 1024))
        client.sendRaw(Array(repeating: UInt8(ascii: "x"), count: 100 * 1024) + [10])
        #expect(client.reply()?.errorCode == "line_too_long")
        // Bad input changed nothing: the only job is the bystander's, and it still answers.
        let list = try #require(client.call(["id": "l", "op": "list"]))
        #expect((list.result?["jobs"] as? [[String: Any]])?.map { $0["key"] as? String } == ["b"])
        #expect(bystander.call(["id": 2, "op": "status"])?["ok"] as? Bool == true)
        #expect(Self.malformed.count >= 15)
    }

    @Test("a watcher that stops reading is disconnected; the daemon and other clients carry on")
    func slowWatcherIsDropped() throws {
        let directory = TemporaryDirectory()
        let daemon = try startDaemon(in: directory) { $0.maxPendingBytes = 65_536 }
        defer { daemon.stop() }
        let slow = try LineClient(path: daemon.socketPath, timeoutSeconds: 10)
        slow.send(["id": "w", "op": "watch", "scope": "flood"])
        let fast = try LineClient(path: daemon.socketPath)
        for index in 0..<200 {
            fast.send(["id": index, "op": "register-countdown", "key": "f\(index)", "scope": "flood", "duration_ms": 5_000, "tick_ms": 10, "ephemeral": true])
        }
        for _ in 0..<200 { #expect(fast.reply()?["ok"] as? Bool == true) }
        // The slow client has not read anything yet; give the daemon time to overflow its budget.
        usleep(1_500_000)
        #expect(slow.drainUntilClosed(), "the daemon should have closed the connection that stopped reading")
        let status = try #require(fast.call(["id": "s", "op": "status"]))
        #expect(status["ok"] as? Bool == true)
        #expect(daemon.loop.inspect { $0.connectionCount } == 1)
    }

    @Test("a list page stays within half of socket.max_pending_bytes, left unread it closes nothing, and next pages through the rest; a client sending requests without reading stalls only itself")
    func largeReplyIsNotASlowReader() throws {
        let directory = TemporaryDirectory()
        let daemon = try startDaemon(in: directory) { $0.maxPendingBytes = 65_536 }
        defer { daemon.stop() }
        let client = try LineClient(path: daemon.socketPath, timeoutSeconds: 10)
        // In runs of 100: a client that sends more than its replies' worth of the limit without
        // reading stalls (below), so this one reads as it goes.
        for run in 0..<30 {
            for index in run * 100..<(run + 1) * 100 {
                client.send(["id": index, "op": "register-countdown", "key": "k\(index)", "scope": "big", "duration_ms": 600_000, "ephemeral": true])
            }
            for _ in 0..<100 { #expect(client.reply()?["ok"] as? Bool == true) }
        }
        // A followed countdown ticks every 20 ms while the large reply waits unread: its events are
        // not a slow reader either.
        #expect(client.call(["id": "t", "op": "register-countdown", "key": "ticker", "duration_ms": 2_000, "tick_ms": 20, "follow": true, "ephemeral": true])?["ok"] as? Bool == true)
        // 3,001 jobs: about 1 MB of views. A page holds at most half the 64 KiB limit of them; the
        // first is left unread for 300 ms.
        client.send(["id": "l", "op": "list", "limit": 1_000])
        usleep(300_000)
        var page = try #require(client.reply())
        var listed = (page.result?["jobs"] as? [[String: Any]])?.count ?? 0
        #expect(listed > 10 && listed < 1_000, "\(listed) jobs in the first page")
        #expect(try JSONSerialization.data(withJSONObject: page).count <= 32_768 + 1_024)
        var pages = 1
        while let next = page.result?["next"] as? String, pages < 1_000 {
            page = try #require(client.call(["id": "l\(pages)", "op": "list", "limit": 1_000, "after": next]))
            listed += (page.result?["jobs"] as? [[String: Any]])?.count ?? 0
            pages += 1
        }
        #expect(listed == 3_001)
        #expect(client.call(["id": "s", "op": "status"])?["ok"] as? Bool == true, "the connection is still open")
        var ticks = 0
        while let line = client.next(), line["event"] as? String != "expired" { ticks += line["event"] as? String == "tick" ? 1 : 0 }
        #expect(ticks > 20, "the ticks kept coming")
        let cancelled = try #require(client.call(["id": "c", "op": "cancel", "scope": "big"]))
        #expect(cancelled.result?["count"] as? Int == 3_000)

        // Requests sent without reading: the daemon stops reading them once 64 KiB of replies wait,
        // and answers every one once the client reads.
        let greedy = try LineClient(path: daemon.socketPath, timeoutSeconds: 10)
        let request = Array(("{\"id\":1,\"op\":\"list\",\"limit\":1}\n").utf8)
        var sent = 0
        var writable = true
        let flags = fcntl(greedy.descriptor, F_GETFL)
        _ = fcntl(greedy.descriptor, F_SETFL, flags | O_NONBLOCK)
        while sent < 20_000, writable {
            writable = request.withUnsafeBytes { send(greedy.descriptor, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) } == request.count
            if writable { sent += 1 }
        }
        _ = fcntl(greedy.descriptor, F_SETFL, flags)
        #expect(!writable, "the daemon should have stopped reading after \(sent) requests")
        let bystander = try LineClient(path: daemon.socketPath)
        #expect(bystander.call(["id": 1, "op": "status"])?["ok"] as? Bool == true)
        for _ in 0..<sent { #expect(greedy.reply()?["ok"] as? Bool == true) }
    }

    @Test("a connection's requests in progress stop at 4,096: waits, whose replies cost no bytes until the job ends, make the daemon stop reading; all are answered once it ends, and others are served meanwhile")
    func requestsInProgressCapped() throws {
        let directory = TemporaryDirectory()
        let daemon = try startDaemon(in: directory)
        defer { daemon.stop() }
        let owner = try LineClient(path: daemon.socketPath, timeoutSeconds: 10)
        let registered = try #require(owner.call(["id": 1, "op": "register-countdown", "key": "held", "duration_ms": 600_000, "ephemeral": true]))
        let id = try #require(registered.job?["id"] as? String)
        let greedy = try LineClient(path: daemon.socketPath, timeoutSeconds: 10)
        let request = Array("{\"id\":1,\"op\":\"wait\",\"job\":\"\(id)\"}\n".utf8)
        var sent = 0
        let flags = fcntl(greedy.descriptor, F_GETFL)
        _ = fcntl(greedy.descriptor, F_SETFL, flags | O_NONBLOCK)
        // Whole lines sent in `sent`; a line the full socket took only part of waits in `rest`.
        var rest: [UInt8] = []
        func sendAll() -> Int {
            var bytes = 0
            while sent < 100_000 {
                if rest.isEmpty { rest = request }
                let written = rest.withUnsafeBytes { send(greedy.descriptor, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { return bytes }
                bytes += written
                rest.removeFirst(written)
                if rest.isEmpty { sent += 1 }
            }
            return bytes
        }
        // Stalled: the socket stays full 100 ms after it filled. Without the cap the daemon reads
        // on, and every pause lets more bytes in (bounded: 20 pauses, 100,000 lines).
        var stalled = false
        for _ in 0..<20 where !stalled {
            _ = sendAll()
            usleep(100_000)
            stalled = sendAll() == 0
        }
        _ = fcntl(greedy.descriptor, F_SETFL, flags)
        #expect(stalled, "the daemon should have stopped reading; \(sent) waits went in")
        #expect(sent >= ConnectionHandler.maxInProgress)
        let bystander = try LineClient(path: daemon.socketPath)
        #expect(bystander.call(["id": 1, "op": "status"])?["ok"] as? Bool == true)
        #expect(owner.call(["id": 2, "op": "cancel", "job": id])?["ok"] as? Bool == true)
        if !rest.isEmpty, rest.count < request.count {
            greedy.sendRaw(rest)
            sent += 1
        }
        var answered = 0
        while answered < sent, let reply = greedy.reply() {
            #expect(reply.job?["state"] as? String == "cancelled")
            answered += 1
        }
        #expect(answered == sent)
    }

    @Test("the socket file has mode 0660")
    func socketMode() throws {
        let directory = TemporaryDirectory()
        let daemon = try startDaemon(in: directory)
        defer { daemon.stop() }
        var status = stat()
        #expect(stat(daemon.socketPath, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o660)
        #expect(status.st_mode & S_IFMT == S_IFSOCK)
    }

    @Test("a stale socket file is replaced; a live daemon on the path is reported, not clobbered")
    func staleAndLiveSockets() throws {
        let directory = TemporaryDirectory()
        // A stale socket: bound, then its owner went away without removing it.
        let path = directory.path + "/reqd.sock"
        close(try UnixSocket.bind(path: path, type: Int32(SOCK_STREAM.rawValue)))
        #expect(FileManager.default.fileExists(atPath: path))

        let daemon = try startDaemon(in: directory)
        defer { daemon.stop() }
        #expect(try LineClient(path: path).call(["id": 1, "op": "status"])?["ok"] as? Bool == true)

        // Another state directory, so that the socket is what the second daemon finds taken.
        #expect {
            _ = try startDaemon(in: directory) { $0.stateDirectory = directory.path + "/other-state" }
        } throws: { error in
            (error as? DaemonError)?.code == .alreadyRunning
        }
        #expect(try LineClient(path: path).call(["id": 2, "op": "status"])?["ok"] as? Bool == true)
    }

    @Test("a socket path that is too long gets a clear error")
    func socketPathTooLong() throws {
        let directory = TemporaryDirectory()
        #expect {
            _ = try startDaemon(in: directory) { $0.socketPath = directory.path + "/" + String(repeating: "s", count: 120) + ".sock" }
        } throws: { error in
            guard let error = error as? DaemonError else { return false }
            return error.code == .socketPathTooLong && error.message.contains("107")
        }
    }

    @Test("durable countdowns come back after a restart with the same id; ephemeral ones do not")
    func restartRestores() throws {
        let directory = TemporaryDirectory()
        var durableID = ""
        do {
            let daemon = try startDaemon(in: directory)
            let client = try LineClient(path: daemon.socketPath)
            durableID = try #require(client.call(["id": 1, "op": "register-countdown", "key": "d", "duration_ms": 60_000])?.job?["id"] as? String)
            _ = client.call(["id": 2, "op": "register-countdown", "key": "e", "duration_ms": 60_000, "ephemeral": true])
            daemon.stop()
        }
        let daemon = try startDaemon(in: directory)
        defer { daemon.stop() }
        let client = try LineClient(path: daemon.socketPath)
        let list = try #require(client.call(["id": 1, "op": "list"]))
        let jobs = try #require(list.result?["jobs"] as? [[String: Any]])
        #expect(jobs.map { $0["id"] as? String } == [durableID])
        let remaining = try #require(jobs.first?["remaining_ms"] as? Int)
        #expect(remaining > 50_000 && remaining <= 60_000)
    }

    @Test("an idle daemon does not wake up")
    func idleDoesNotWake() throws {
        let directory = TemporaryDirectory()
        let daemon = try startDaemon(in: directory)
        defer { daemon.stop() }
        let client = try LineClient(path: daemon.socketPath)
        let id = try #require(client.call(["id": 1, "op": "register-countdown", "key": "i", "duration_ms": 200, "ephemeral": true])?.job?["id"] as? String)
        #expect(client.call(["id": 2, "op": "wait", "job": id])?.job?["state"] as? String == "expired")
        let wakeups = daemon.loop.wakeupCount
        usleep(1_500_000)
        #expect(daemon.loop.wakeupCount == wakeups)
        #expect(daemon.loop.inspect { $0.nextDeadline } == nil)
    }
}
