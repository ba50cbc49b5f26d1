import Foundation
import Logging
import NIOCore
import NIOPosix
import ReqdCore
import ReqdTestSupport
import Testing

@testable import ReqdDaemon

@Suite("Target policy against real HTTP servers: literal addresses, names and redirects", .serialized)
struct TargetPolicyServerTests {
    /// A fixture whose daemon denies `deny`, and whose server sends `/redirect` to `target`.
    private static func fixture(allow: [String] = [], deny: [String], redirectTo target: @escaping @Sendable () -> String = { "" }) throws -> ServerFixture {
        try ServerFixture(
            configure: {
                $0.scheduler.targetPolicy.allow = allow
                $0.scheduler.targetPolicy.deny = deny
            },
            handler: { record in
                guard record.path == "/redirect" else { return TestHTTPServer.Reply(body: "{\"ok\":true}") }
                var reply = TestHTTPServer.Reply(status: 302)
                reply.headers.append(("Location", target()))
                return reply
            })
    }

    @Test("a literal address in a denied range is refused at registration; allowed traffic still flows, through the gate")
    func literalAddress() throws {
        let denied = try TestHTTPServer(host: "127.0.0.2") { _ in TestHTTPServer.Reply(body: "{}") }
        defer { denied.shutdown() }
        let fixture = try Self.fixture(deny: ["127.0.0.2/32"])
        let refused = try fixture.call(["op": "submit", "method": "GET", "url": denied.url("/x")])
        #expect(refused.errorCode == "denied_target")
        #expect((refused.errorMessage ?? "").contains("127.0.0.2 is in 127.0.0.2/32"))
        let poll = try fixture.call(["op": "register-poll", "url": denied.url("/x"), "every_ms": 1_000, "until": "status == 200"])
        #expect(poll.errorCode == "denied_target")
        let allowed = try fixture.submit("GET", "/ok")
        let job = try fixture.wait(try #require(allowed.job?["id"] as? String))
        #expect(job["state"] as? String == "succeeded")
        #expect(fixture.server.records(path: "/ok").count == 1)
        #expect(denied.connectionCount == 0)
    }

    @Test("a name that resolves into a denied range fails its attempt with denied_target, without connecting; an allowed name passes")
    func name() throws {
        let fixture = try Self.fixture(deny: ["127.0.0.0/8", "::1/128"])
        let url = "http://localhost:\(fixture.server.port)/ok"
        let submitted = try fixture.call(["op": "submit", "method": "GET", "url": url, "max_attempts": 5])
        let job = try fixture.wait(try #require(submitted.job?["id"] as? String))
        #expect(job["state"] as? String == "failed")
        let error = job["error"] as? String ?? ""
        #expect(error.hasPrefix("denied_target: "), "\(error)")
        #expect(error.contains(" is in 127.0.0.0/8") || error.contains(" is in ::1/128"), "\(error)")
        #expect((job["request"] as? [String: Any])?["attempts"] as? Int == 1, "no retry")
        let poll = try fixture.call(["op": "register-poll", "url": url, "every_ms": 1_000, "until": "status == 200"])
        let polled = try fixture.wait(try #require(poll.job?["id"] as? String))
        #expect(polled["state"] as? String == "failed")
        #expect((polled["error"] as? String ?? "").hasPrefix("denied_target: "))
        #expect(fixture.server.connectionCount == 0)

        let excepted = try Self.fixture(allow: ["localhost"], deny: ["127.0.0.0/8", "::1/128"])
        let allowed = try excepted.call(["op": "submit", "method": "GET", "url": "http://localhost:\(excepted.server.port)/ok"])
        let done = try excepted.wait(try #require(allowed.job?["id"] as? String))
        #expect(done["state"] as? String == "succeeded", "\(done)")
    }

    @Test("a redirect into a denied range fails with denied_target, and the denied server sees no connection")
    func redirect() throws {
        let denied = try TestHTTPServer(host: "127.0.0.2") { _ in TestHTTPServer.Reply(body: "{}") }
        defer { denied.shutdown() }
        let location = denied.url("/inside")
        let mapped = "http://[::ffff:127.0.0.2]:\(denied.port)/inside"
        for target in [location, mapped] {
            let fixture = try Self.fixture(deny: ["127.0.0.2/32"], redirectTo: { target })
            let submitted = try fixture.submit("GET", "/redirect", ["max_attempts": 3])
            let job = try fixture.wait(try #require(submitted.job?["id"] as? String))
            #expect(job["state"] as? String == "failed", "\(target)")
            #expect((job["error"] as? String ?? "") == "denied_target: 127.0.0.2 is in 127.0.0.2/32, which http.deny refuses")
            #expect(fixture.server.records(path: "/redirect").count == 1, "no retry")
        }
        #expect(denied.connectionCount == 0)
    }

    @Test("the gate serves only the daemon's own credential, refuses a denied target with 403 and records why, and tunnels bytes to an allowed one")
    func gate() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(body: "{\"ok\":true}") }
        defer { server.shutdown() }
        var policy = TargetPolicy()
        policy.deny = ["127.0.0.2/32"]
        var settings = HTTPSettings()
        settings.connectTimeoutNanos = 300_000_000
        let gate = try TargetGate(policy: policy, settings: settings, group: group, logger: Logger(label: "test"))
        defer { gate.close() }
        let credential = "Proxy-Authorization: Basic " + Data("reqd:\(gate.checkpoint.password)".utf8).base64EncodedString() + "\r\n"
        let target = "127.0.0.1:\(server.port)"
        #expect(try Self.exchange(port: gate.port, "CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n\r\n").hasPrefix("HTTP/1.1 407"))
        let wrong = "Proxy-Authorization: Basic " + Data("reqd:guess".utf8).base64EncodedString() + "\r\n"
        #expect(try Self.exchange(port: gate.port, "CONNECT \(target) HTTP/1.1\r\n\(wrong)\r\n").hasPrefix("HTTP/1.1 407"))
        #expect(try Self.exchange(port: gate.port, "GET http://\(target)/ok HTTP/1.1\r\n\(credential)\r\n").hasPrefix("HTTP/1.1 407"))
        let refused = try Self.exchange(port: gate.port, "CONNECT 127.0.0.2:\(server.port) HTTP/1.1\r\n\(credential)\r\n")
        #expect(refused.hasPrefix("HTTP/1.1 403"))
        guard case .denied(let denial)? = gate.failure(for: "127.0.0.2:\(server.port)") else {
            Issue.record("no denial recorded")
            return
        }
        #expect(denial.description == "127.0.0.2 is in 127.0.0.2/32, which http.deny refuses")
        // A connection that never asks is closed after the connect timeout (300 ms here).
        let started = DispatchTime.now()
        #expect(try Self.exchange(port: gate.port, "") == "")
        let waited = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        #expect(waited >= 0.25 && waited < 2.5, "closed after \(waited) s")
        let tunnelled = try Self.exchange(
            port: gate.port,
            "CONNECT \(target) HTTP/1.1\r\n\(credential)\r\n",
            then: "GET /ok HTTP/1.1\r\nHost: \(target)\r\nConnection: close\r\n\r\n")
        // The gate's 200 is a bare head (no body, no chunked framing), then the target speaks.
        #expect(tunnelled.hasPrefix("HTTP/1.1 200 OK\r\n\r\nHTTP/1.1 200 OK\r\n"), "\(tunnelled)")
        #expect(tunnelled.hasSuffix("{\"ok\":true}"))
        // A client that sends its first bytes along with the CONNECT has them passed on.
        let eager = try Self.exchange(
            port: gate.port,
            "CONNECT \(target) HTTP/1.1\r\n\(credential)\r\nGET /ok HTTP/1.1\r\nHost: \(target)\r\nConnection: close\r\n\r\n")
        #expect(eager.hasPrefix("HTTP/1.1 200 OK\r\n\r\nHTTP/1.1 200 OK\r\n"), "\(eager)")
        #expect(server.records(path: "/ok").count == 2)
        #expect(server.connectionCount == 2)
    }

    @Test("through the gate, a name that does not resolve and a refused connection keep the messages they have without it")
    func failuresKeepTheirWords() throws {
        let fixture = try Self.fixture(deny: ["10.0.0.0/8"])
        let unknown = try fixture.call(["op": "submit", "method": "GET", "url": "http://no-such-host.invalid/x", "max_attempts": 1])
        let unknownJob = try fixture.wait(try #require(unknown.job?["id"] as? String))
        #expect((unknownJob["error"] as? String ?? "").contains("could not resolve no-such-host.invalid"), "\(unknownJob)")
        let closedPort = try TestHTTPServer { _ in TestHTTPServer.Reply() }
        let port = closedPort.port
        closedPort.shutdown()
        let refused = try fixture.call(["op": "submit", "method": "GET", "url": "http://127.0.0.1:\(port)/", "max_attempts": 1])
        let refusedJob = try fixture.wait(try #require(refused.job?["id"] as? String))
        let error = refusedJob["error"] as? String ?? ""
        #expect(error.contains("could not connect to 127.0.0.1:\(port)") && error.contains("refused"), "\(error)")
    }

    @Test("the gate's record of refusals: the latest per target, for 30 s, at most 1,024 targets")
    func failureLog() {
        var log = TargetGate.FailureLog()
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)
        log.record(.failed("first"), for: "a:80", now: start)
        log.record(.unreachable("second"), for: "a:80", now: start + .seconds(1))
        #expect(log.failure(for: "a:80", now: start + .seconds(2)) == .unreachable("second"))
        #expect(log.failure(for: "a:80", now: start + .seconds(2)) == .unreachable("second"), "read as often as asked")
        #expect(log.failure(for: "a:80", now: start + .seconds(31)) == nil, "expired")
        #expect(log.failure(for: "b:80", now: start) == nil)
        for index in 0..<3_000 { log.record(.failed("\(index)"), for: "h\(index):80", now: start + .seconds(Int64(index / 100))) }
        #expect(log.count <= TargetGate.FailureLog.capacity)
        #expect(log.failure(for: "h2999:80", now: start + .seconds(30)) == .failed("2999"))
    }

    /// Writes `first` to 127.0.0.1:`port`, then `then` once an answer starts, and reads until the
    /// other side closes (or 3 s pass).
    private static func exchange(port: Int, _ first: String, then second: String? = nil) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        var timeout = timeval(tv_sec: 3, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        for (index, text) in [first, second].enumerated() {
            guard let text else { break }
            _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
            while true {
                let count = read(fd, &buffer, buffer.count)
                guard count > 0 else { break }
                received += buffer[..<count]
                // Before the tunnel's request, read only the gate's answer (it ends with a blank line).
                if index == 0, second != nil, String(decoding: received, as: UTF8.self).hasSuffix("\r\n\r\n") { break }
            }
        }
        return String(decoding: received, as: UTF8.self)
    }
}
