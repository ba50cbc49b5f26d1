import Foundation
import ReqdTestSupport
import Synchronization
import Testing

/// Two throwaway `whsec_` secrets, one a line, as a receiver rotating keys would have them.
private let secrets = [
    "whsec_" + Data((0..<24).map { UInt8($0 * 7 % 256) }).base64EncodedString(),
    "whsec_" + Data((0..<32).map { UInt8(255 - $0) }).base64EncodedString(),
]

/// Runs the Standard Webhooks reference verifier (PyPI `standardwebhooks`, installed into
/// `.build-py` by scripts/setup) on `body` and `headers` with `secret`: "ok", or why it refused.
private func verify(secret: String, body: String, headers: [String: String]) throws -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let library = root.appendingPathComponent(".build-py").path
    #expect(FileManager.default.fileExists(atPath: library + "/standardwebhooks/__init__.py"), "run scripts/setup: it installs standardwebhooks")
    let script = """
        import json, sys
        from standardwebhooks.webhooks import Webhook, WebhookVerificationError
        secret, body, headers = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
        try:
            Webhook(secret).verify(body, headers)
            print("ok")
        except WebhookVerificationError as error:
            print("refused: " + str(error))
        """
    let headerText = String(decoding: try JSONSerialization.data(withJSONObject: headers), as: UTF8.self)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, secret, body, headerText]
    process.environment = ["PYTHONPATH": library, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// A secret file holding the first secret, and a configuration file that signs `server`'s
/// requests with it, in `directory`: their paths.
private func signedTarget(_ server: TestHTTPServer, in directory: String) throws -> (secretFile: String, config: String) {
    let secretFile = directory + "/hooks.secret"
    try (secrets[0] + "\n").write(toFile: secretFile, atomically: true, encoding: .utf8)
    let file = directory + "/reqd.toml"
    try "[targets.\"127.0.0.1:\(server.port)\"]\nsign_secret_file = \"\(secretFile)\"\n".write(toFile: file, atomically: true, encoding: .utf8)
    return (secretFile, file)
}

@Suite("sign_secret_file: Standard Webhooks signatures, checked by the reference verifier", .serialized)
struct SigningBinaryTests {
    @Test("every attempt carries webhook-id (the job id, the same on the retry), its own webhook-timestamp, and a v1 signature per secret that the reference verifier accepts; a tampered body is refused")
    func signed() throws {
        let answers = Mutex(0)
        // The first answer asks for a 2 s pause, so that the retry goes in a later second than the
        // first attempt and its timestamp must differ.
        let server = try TestHTTPServer { _ in
            guard answers.withLock({ count in count += 1; return count }) == 1 else { return TestHTTPServer.Reply(body: "{}") }
            var reply = TestHTTPServer.Reply(status: 503, body: "{}")
            reply.headers.append(("Retry-After", "2"))
            return reply
        }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let secretFile = directory + "/hooks.secret"
        try ("# rotating: the new secret, then the old one\n" + secrets.joined(separator: "\n") + "\n")
            .write(toFile: secretFile, atomically: true, encoding: .utf8)
        chmod(secretFile, 0o600)
        let file = directory + "/reqd.toml"
        try "[targets.\"127.0.0.1:\(server.port)\"]\nsign_secret_file = \"\(secretFile)\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        let log = directory + "/reqd.log"
        let daemon = try DaemonProcess(directory: directory, extraArguments: ["--config", file, "--log-level", "debug"], logFile: log)
        defer { daemon.stop() }
        let body = "{\"order\":42,\"note\":\"caf\u{e9}\"}"
        let outcome = try Binaries.client(
            ["--json", "submit", "POST", server.url("/hook"), "--data", body, "--max-attempts", "3", "--backoff", "100ms..200ms", "--wait"],
            socket: daemon.socket, timeout: 20)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let records = server.records(path: "/hook")
        try #require(records.count == 2)
        // Each attempt of a request job also carries `Idempotency-Key: <job id>`.
        let job = try #require(records[0].header("Idempotency-Key"))
        #expect(job.hasPrefix("rq_") && outcome.stdout.contains(job))
        for record in records {
            #expect(record.header("webhook-id") == job, "the job id, the same on every attempt")
            let signature = try #require(record.header("webhook-signature"))
            #expect(signature.split(separator: " ").count == 2 && signature.split(separator: " ").allSatisfy { $0.hasPrefix("v1,") })
            let headers = ["webhook-id": job, "webhook-timestamp": try #require(record.header("webhook-timestamp")), "webhook-signature": signature]
            for secret in secrets {
                #expect(try verify(secret: secret, body: record.body, headers: headers) == "ok", "either secret verifies")
            }
            #expect(try verify(secret: secrets[0], body: record.body.replacingOccurrences(of: "42", with: "43"), headers: headers).hasPrefix("refused"))
            let other = "whsec_" + Data(repeating: 9, count: 24).base64EncodedString()
            #expect(try verify(secret: other, body: record.body, headers: headers).hasPrefix("refused"), "another secret does not verify")
        }
        #expect(records[0].body == body)
        let stamps = records.compactMap { $0.header("webhook-timestamp").flatMap { Int($0) } }
        #expect(stamps.count == 2 && stamps[1] >= stamps[0] + 2, "each attempt is stamped when it goes: \(stamps)")
        let text = try String(contentsOfFile: log, encoding: .utf8)
        for secret in secrets { #expect(!text.contains(secret) && !text.contains(secret.dropFirst(6)), "no secret in the log") }
    }

    @Test("SIGHUP reads the secret file again: the next request is signed with the new secret; a file with none is refused and the last good secret stays")
    func reloadReadsSecrets() throws {
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(body: "{}") }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (secretFile, file) = try signedTarget(server, in: directory)
        let log = directory + "/reqd.log"
        let daemon = try DaemonProcess(directory: directory, extraArguments: ["--config", file], logFile: log)
        defer { daemon.stop() }
        /// Sends one signed request to `path` and says which of the secrets verify it.
        func verifiedBy(_ path: String) throws -> [Bool] {
            let outcome = try Binaries.client(["submit", "POST", server.url(path), "--data", "{}", "--wait"], socket: daemon.socket, timeout: 15)
            #expect(outcome.status == 0, "\(outcome.stdout)")
            let record = try #require(server.records(path: path).first)
            let headers = ["webhook-id", "webhook-timestamp", "webhook-signature"].reduce(into: [String: String]()) { $0[$1] = record.header($1) }
            return try secrets.map { try verify(secret: $0, body: record.body, headers: headers) == "ok" }
        }
        #expect(try verifiedBy("/first") == [true, false])
        try (secrets[1] + "\n").write(toFile: secretFile, atomically: true, encoding: .utf8)
        daemon.reload(expecting: "configuration reloaded", count: 1, in: log)
        #expect(try verifiedBy("/second") == [false, true], "signed with the new secret alone")
        try "# no secret here\n".write(toFile: secretFile, atomically: true, encoding: .utf8)
        daemon.reload(expecting: "reload refused", count: 1, in: log)
        #expect(daemon.process.isRunning)
        #expect(try verifiedBy("/third") == [false, true], "the last good secret stays")
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.contains(secretFile), "the refusal names the file")
        for secret in secrets { #expect(!text.contains(secret.dropFirst(6)), "no secret in the log") }
    }

    @Test("a signed request does not follow a redirect to another origin, which would get the signature too")
    func noCrossOriginRedirect() throws {
        let elsewhere = try TestHTTPServer { _ in TestHTTPServer.Reply(body: "{}") }
        defer { elsewhere.shutdown() }
        let server = try TestHTTPServer { record in
            if record.path == "/same" { return TestHTTPServer.Reply(body: "{}") }
            // /away-305 answers 305, and so on: every status the client follows, 304 and 305 too.
            let status = Int(record.path.split(separator: "-").last ?? "") ?? 307
            var reply = TestHTTPServer.Reply(status: status, body: "")
            reply.headers.append(("Location", record.path.hasPrefix("/away") ? elsewhere.url("/caught") : "/same"))
            return reply
        }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (_, file) = try signedTarget(server, in: directory)
        let daemon = try DaemonProcess(directory: directory, extraArguments: ["--config", file])
        defer { daemon.stop() }
        for status in [307, 301, 305, 304] {
            let refused = try Binaries.client(
                ["submit", "POST", server.url("/away-\(status)"), "--data", "{}", "--max-attempts", "1", "--wait"], socket: daemon.socket, timeout: 15)
            #expect(refused.status != 0, "\(status)")
            #expect(refused.stdout.contains("refused to follow a redirect to 127.0.0.1:\(elsewhere.port)"), "\(status): \(refused.stdout)")
            #expect(elsewhere.records.isEmpty, "the other origin got nothing after a \(status)")
        }
        let followed = try Binaries.client(["submit", "POST", server.url("/here"), "--data", "{}", "--max-attempts", "1", "--wait"], socket: daemon.socket, timeout: 15)
        #expect(followed.status == 0, "a redirect within the origin is followed: \(followed.stdout)")
        #expect(server.records(path: "/same").first?.header("webhook-signature") != nil)
    }

    @Test("a sign_secret_file that is missing, unreadable or holds no whsec_ secret is refused naming the file, never its text")
    func badSecretFile() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let secretFile = directory + "/hooks.secret"
        let file = directory + "/reqd.toml"
        try "[targets.default]\nsign_secret_file = \"\(secretFile)\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        for (content, words) in [(nil, "no such file"), ("whsec_AAAA\nnot-a-secret-value\n", "line 2 is not a secret"), ("# none\n", "holds no secret")] {
            try? FileManager.default.removeItem(atPath: secretFile)
            if let content { try content.write(toFile: secretFile, atomically: true, encoding: .utf8) }
            let outcome = try Binaries.run(Binaries.reqd, ["--config", file, "--check-config"])
            #expect(outcome.status != 0)
            #expect(outcome.stderr.contains(secretFile) && outcome.stderr.contains(words), "\(outcome.stderr)")
            #expect(!outcome.stderr.contains("not-a-secret-value"))
        }
    }
}
