import Foundation
import Testing

/// `socat` as the client, as docs/PROTOCOL.md shows it: it sends its input, ends its write side, and
/// prints what comes back until the daemon closes. scripts/setup installs it.
@Suite("socat as the client: end of input is a half-close")
struct SocatTests {
    private static let socat = "/usr/bin/socat"

    private static func socat(_ input: String, socket: String) throws -> Binaries.Outcome {
        try Binaries.run("/bin/sh", ["-c", "printf '%s\\n' \"$1\" | \(Self.socat) -t 30 - UNIX-CONNECT:\"$2\"", "sh", input, socket], timeout: 40)
    }

    private static func lines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    @Test("a durable registration piped through socat gets its reply, which waits for the commit")
    func durableReply() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try DaemonProcess(directory: directory)
        let outcome = try Self.socat(#"{"id":1,"op":"register-countdown","key":"socat","duration_ms":600000}"#, socket: daemon.socket)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = Self.lines(outcome.stdout)
        #expect(lines.count == 1, "\(outcome.stdout)")
        #expect(lines.first?["id"] as? Int == 1)
        #expect(lines.first?["ok"] as? Bool == true, "\(outcome.stdout)")
        let job = (lines.first?["result"] as? [String: Any])?["job"] as? [String: Any]
        #expect(job?["durable"] as? Bool == true)
        let listed = try Binaries.client(["--json", "list", "--key", "socat"], socket: daemon.socket)
        #expect(listed.stdout.contains("\"state\":\"active\""), "the job exists, once: \(listed.stdout)")
    }

    @Test("a followed registration piped through socat prints its reply, every tick and expired, then socat ends")
    func followToExpiry() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try DaemonProcess(directory: directory)
        let started = Date()
        let outcome = try Self.socat(
            #"{"id":1,"op":"register-countdown","key":"followed","duration_ms":1500,"tick_ms":500,"follow":true}"#,
            socket: daemon.socket)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(Date().timeIntervalSince(started) < 10, "socat ended when the daemon closed after expired")
        let lines = Self.lines(outcome.stdout)
        #expect(lines.first?["ok"] as? Bool == true, "\(outcome.stdout)")
        let events = lines.compactMap { $0["event"] as? String }
        #expect(events.filter { $0 == "tick" }.count == 2, "ticks at 1,000 and 500 ms left: \(events)")
        #expect(events.last == "expired", "\(events)")
    }
}
