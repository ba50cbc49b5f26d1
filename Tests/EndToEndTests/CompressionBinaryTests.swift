import Foundation
import ReqdTestSupport
import Testing

/// `bytes` through `gzip -c`.
private func gzipped(_ bytes: [UInt8]) throws -> [UInt8] {
    try filtered(bytes, through: "/usr/bin/gzip", ["-c"])
}

/// `bytes` as HTTP's `deflate` coding: a zlib stream (RFC 1950), from Python's `zlib`.
private func deflated(_ bytes: [UInt8]) throws -> [UInt8] {
    try filtered(bytes, through: "/usr/bin/python3", ["-c", "import sys, zlib; sys.stdout.buffer.write(zlib.compress(sys.stdin.buffer.read()))"])
}

/// `bytes` through a program's standard input and output.
private func filtered(_ bytes: [UInt8], through program: String, _ arguments: [String]) throws -> [UInt8] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    let writer = Thread {
        input.fileHandleForWriting.write(Data(bytes))
        try? input.fileHandleForWriting.close()
    }
    writer.start()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Array(data)
}

/// The daemon's resident memory, from /proc.
/// The daemon's resident memory now (`VmRSS`), or the most it has had (`VmHWM`), in bytes.
private func residentBytes(_ daemon: DaemonProcess, peak: Bool = false) -> Int {
    let status = (try? String(contentsOfFile: "/proc/\(daemon.process.processIdentifier)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix(peak ? "VmHWM:" : "VmRSS:") } ?? ""
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
}

@Suite("Compressed answers (a target's decompress), end to end", .serialized)
struct CompressionBinaryTests {
    @Test("a gzip answer is decoded: the poll's condition and progress read it; a 64 MB bomb fails its attempt, and the daemon's peak memory grows by less than 4 MB")
    func gzipAndBomb() throws {
        let done = try gzipped(Array(#"{"state":"done","progress":100}"#.utf8))
        let bomb = try gzipped([UInt8](repeating: 0, count: 64 << 20))
        #expect(bomb.count < 1 << 20, "the bomb is small on the wire")
        let server = try TestHTTPServer { record in
            var reply = TestHTTPServer.Reply(body: #"{"state":"done","progress":100}"#)
            guard record.header("Accept-Encoding")?.contains("gzip") == true else { return reply }
            reply.body = record.path == "/bomb" ? bomb : done
            reply.headers.append(("Content-Encoding", "gzip"))
            return reply
        }
        try withServerAndDaemon(server) { server, daemon in
            let poll = try Binaries.client(
                ["--json", "register-poll", server.url("/gz"), "--every", "100ms", "--until", #"/state == "done""#, "--progress", "/progress", "--wait"],
                socket: daemon.socket)
            #expect(poll.status == 0, "\(poll.stdout) \(poll.stderr)")
            // The last line is the ended job.
            let ended = poll.stdout.split(separator: "\n").last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]
            let progress = ((ended?["job"] as? [String: Any])?["poll"] as? [String: Any])?["progress"] as? Double
            #expect(progress == 100, "the progress is read from the decoded body: \(poll.stdout)")
            #expect(server.records(path: "/gz").first?.header("Accept-Encoding")?.contains("gzip") == true)
            let (before, peakBefore) = (residentBytes(daemon), residentBytes(daemon, peak: true))
            let submitted = try Binaries.client(
                ["submit", "GET", server.url("/bomb"), "--max-attempts", "1", "--wait"], socket: daemon.socket, timeout: 60)
            #expect(submitted.status != 0)
            #expect(submitted.stdout.contains("decodes to more than 1048576 bytes"), "\(submitted.stdout)")
            // Decoded whole, the bomb would take 64 MB; cut at the limit, the attempt held at most
            // 1 MB, and the allocator may keep some of the decoder's buffers.
            let (after, peakAfter) = (residentBytes(daemon), residentBytes(daemon, peak: true))
            #expect(after - before < 2 << 20, "the daemon grew \((after - before) >> 10) KB")
            #expect(peakAfter - peakBefore < 4 << 20, "the daemon's peak grew \((peakAfter - peakBefore) >> 10) KB")
            #expect(try Binaries.client(["status"], socket: daemon.socket).status == 0)
        }
    }

    @Test("a deflate answer (a zlib stream) is decoded too: requests offer it, and the poll's condition and progress read it")
    func deflate() throws {
        let text = #"{"state":"done","progress":100}"#
        let done = try deflated(Array(text.utf8))
        #expect(done.count > 2 && done[0] == 0x78 && done != Array(text.utf8), "a zlib stream")
        let server = try TestHTTPServer { record in
            var reply = TestHTTPServer.Reply(body: #"{"state":"running","progress":0}"#)
            guard record.header("Accept-Encoding")?.contains("deflate") == true else { return reply }
            reply.body = done
            reply.headers.append(("Content-Encoding", "deflate"))
            return reply
        }
        try withServerAndDaemon(server) { server, daemon in
            let poll = try Binaries.client(
                ["--json", "register-poll", server.url("/z"), "--every", "100ms", "--until", #"/state == "done""#, "--progress", "/progress",
                 "--time-limit", "10s", "--wait"],
                socket: daemon.socket)
            #expect(poll.status == 0, "\(poll.stdout) \(poll.stderr)")
            let ended = poll.stdout.split(separator: "\n").last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]
            let job = ended?["job"] as? [String: Any]
            #expect((job?["poll"] as? [String: Any])?["progress"] as? Double == 100, "\(poll.stdout)")
            #expect((job?["result"] as? [String: Any])?["body"] as? String == text, "the kept body is the decoded one")
            #expect(server.records(path: "/z").first?.header("Accept-Encoding") == "deflate, gzip")
        }
    }

    @Test("decompress = false for a target: its requests ask for an uncompressed answer (Accept-Encoding: identity)")
    func decompressOff() throws {
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(body: "{}") }
        try withServerAndDaemon(server, daemonArguments: ["--set", "targets.\"127.0.0.1:\(server.port)\".decompress=false"]) { server, daemon in
            let outcome = try Binaries.client(["submit", "GET", server.url("/plain"), "--wait"], socket: daemon.socket)
            #expect(outcome.status == 0, "\(outcome.stdout)")
            #expect(server.records(path: "/plain").first?.header("Accept-Encoding") == "identity")
        }
    }
}
