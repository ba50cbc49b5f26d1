import Foundation
import ReqdTestSupport
import Synchronization
import Testing

@Suite("reqd-client at its edges: large bodies, secrets in usage errors, a daemon that goes away", .serialized)
struct ClientEdgeBinaryTests {
    @Test("a body of 900 KB of any bytes (-d @FILE, sent as base64) fits the default request line and reaches the target whole; one past http.max_request_bytes is refused with exit 11")
    func largeBinaryBody() throws {
        try withServerAndDaemon(try TestHTTPServer { _ in TestHTTPServer.Reply(status: 200, body: "ok") }) { server, daemon in
            var bytes = [UInt8](repeating: 0, count: 900_000)
            for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 13) }
            bytes[0] = 0xFF
            let file = daemon.directory + "/body.bin"
            #expect(FileManager.default.createFile(atPath: file, contents: Data(bytes)))
            let sent = try Binaries.client(["submit", "POST", server.url("/upload"), "-d", "@" + file, "--wait"], socket: daemon.socket)
            #expect(sent.status == 0, "\(sent.stdout) \(sent.stderr)")
            #expect(server.records(path: "/upload").first?.bytes == bytes)
            // Text that JSON would escape into more than base64 takes goes as base64 too.
            let controls = daemon.directory + "/controls.txt"
            #expect(FileManager.default.createFile(atPath: controls, contents: Data(repeating: 0x01, count: 900_000)))
            let escaped = try Binaries.client(["submit", "POST", server.url("/controls"), "-d", "@" + controls, "--wait"], socket: daemon.socket)
            #expect(escaped.status == 0, "\(escaped.stdout) \(escaped.stderr)")
            #expect(server.records(path: "/controls").first?.bytes.count == 900_000)
            let over = daemon.directory + "/over.bin"
            #expect(FileManager.default.createFile(atPath: over, contents: Data(bytes + bytes[..<200_000])))
            let refused = try Binaries.client(["submit", "POST", server.url("/over"), "-d", "@" + over], socket: daemon.socket)
            #expect(refused.status == 11, "\(refused.stdout) \(refused.stderr)")
            #expect(server.records(path: "/over").isEmpty)
        }
    }

    @Test("usage errors do not echo a header's text nor a URL's password, and durations under a millisecond are bad usage (64), not a silent 0")
    func usageErrorsKeepSecrets() throws {
        let socket = "/nonexistent/reqd.sock"
        let header = try Binaries.client(["submit", "POST", "https://api.example/x", "-H", "Authorization Bearer sk_live_SECRET"], socket: socket)
        #expect(header.status == 64)
        #expect(header.stderr.contains("header 1 of 1 has no ':'"), "\(header.stderr)")
        #expect(!header.stderr.contains("SECRET"))
        let url = try Binaries.client(
            ["register-countdown", "--in", "1m", "--on-expire", "POST", "https://me:hunter2@api.example/x", "extra"], socket: socket)
        #expect(url.status == 64)
        #expect(!url.stderr.contains("hunter2"), "\(url.stderr)")
        #expect(url.stderr.contains("https://…@api.example/x"), "\(url.stderr)")
        for arguments in [
            ["submit", "POST", "https://api.example/x", "--dedupe-window", "500us"],
            ["register-countdown", "--in", "1m", "--tick", "0"],
            ["register-poll", "https://api.example/x", "--every", "900us", "--until", "/done == true"],
            ["submit", "POST", "https://api.example/x", "--backoff", "500us"],
            ["register-countdown", "--seconds", "inf"],
        ] {
            let outcome = try Binaries.client(arguments, socket: socket)
            #expect(outcome.status == 64, "\(arguments): \(outcome.status) \(outcome.stderr)")
        }
    }

    @Test("a daemon that stops reading between two requests ends the client with exit 69 and a message, not a SIGPIPE")
    func closedBetweenRequests() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/fake.sock"
        // The fake daemon answers the client's hello and its first `delete`, and then reads no
        // more: a write to it fails.
        let deleted = #"{"id":2,"ok":true,"result":{"job":{"id":"cd_aaaaaaaaaa","kind":"countdown","state":"expired","owner":0,"durable":true,"created_at":"2026-11-30T00:00:00.000Z","ended_at":"2026-11-30T00:00:01.000Z"}}}"#
        let served = try Self.fakeDaemon(at: path, replies: [Self.helloReply, deleted], thenStopReading: true)
        // With SIGPIPE's default action, as from a shell: the test process ignores it, and its
        // children would inherit that.
        let outcome = try Binaries.run(
            "/usr/bin/env", ["--default-signal=PIPE", Binaries.client, "--socket", path, "delete", "cd_aaaaaaaaaa", "cd_bbbbbbbbbb"],
            timeout: 10)
        #expect(outcome.status == 69, "\(outcome.status) \(outcome.stdout) \(outcome.stderr)")
        #expect(outcome.stderr.contains("closed the connection"), "\(outcome.stderr)")
        #expect(outcome.stdout.contains("deleted cd_aaaaaaaaaa"), "\(outcome.stdout)")
        #expect(served.wait(timeout: .now() + 10) == .success)
    }

    @Test("reqd-client says hello first and waits for it: a daemon of another protocol ends it with exit 13 and unsupported_protocol, asked nothing")
    func helloFirst() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/fake.sock"
        let refused = #"{"id":1,"ok":false,"error":{"code":"unsupported_protocol","message":"this daemon speaks protocol 2, not 1"}}"#
        let heard = Mutex<[String]>([])
        let served = try Self.fakeDaemon(at: path, replies: [refused]) { line in heard.withLock { $0.append(line) } }
        let outcome = try Binaries.run(Binaries.client, ["--socket", path, "delete", "cd_aaaaaaaaaa", "cd_bbbbbbbbbb"], timeout: 10)
        #expect(served.wait(timeout: .now() + 10) == .success)
        #expect(outcome.status == 13, "\(outcome.status) \(outcome.stdout) \(outcome.stderr)")
        #expect(outcome.stderr.contains("unsupported_protocol: this daemon speaks protocol 2, not 1"), "\(outcome.stderr)")
        #expect(outcome.stdout.isEmpty, "nothing is deleted through a daemon the client does not understand: \(outcome.stdout)")
        let lines = heard.withLock { $0 }
        #expect(lines.count == 1, "no request follows a refused hello: \(lines)")
        let first = try #require(lines.first.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect(first["op"] as? String == "hello" && first["protocol"] as? Int == 1 && first["id"] as? Int == 1)
        #expect((first["client"] as? String)?.hasPrefix("reqd-client/") == true)
    }

    /// The reply a daemon of this protocol gives to the hello.
    static let helloReply = #"{"id":1,"ok":true,"result":{"protocol":1,"server":"reqd","version":"0.1.0","uid":0}}"#

    /// A daemon at `path` that takes one connection and answers each of the first lines it reads
    /// with the next of `replies`, handing each line to `heard`; with `thenStopReading`, it shuts
    /// its reading side before the last reply and keeps the connection open for 2 s. Afterwards it
    /// reads until the client closes. The semaphore is signalled once it is done.
    static func fakeDaemon(
        at path: String, replies: [String], thenStopReading: Bool = false, heard: @escaping @Sendable (String) -> Void = { _ in }
    ) throws -> DispatchSemaphore {
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 4) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        let served = DispatchSemaphore(value: 0)
        Thread {
            defer {
                close(listener)
                served.signal()
            }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            var received: [UInt8] = []
            func nextLine() -> String? {
                while true {
                    if let newline = received.firstIndex(of: 10) {
                        defer { received.removeSubrange(...newline) }
                        return String(decoding: received[..<newline], as: UTF8.self)
                    }
                    let count = read(connection, &buffer, buffer.count)
                    guard count > 0 else { return nil }
                    received += buffer[..<count]
                }
            }
            for (index, reply) in replies.enumerated() {
                guard let line = nextLine() else { return }
                heard(line)
                if thenStopReading, index == replies.count - 1 { shutdown(connection, Int32(SHUT_RD)) }
                _ = (reply + "\n").withCString { write(connection, $0, strlen($0)) }
            }
            if thenStopReading {
                usleep(2_000_000)
                return
            }
            while let line = nextLine() { heard(line) }
        }.start()
        return served
    }
}
