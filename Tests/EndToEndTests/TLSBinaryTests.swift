import Foundation
import NIOSSL
import ReqdTestSupport
import Testing

/// Submits one attempt to `url` and waits: the exit status and what the client printed.
private func submitOnce(_ url: String, _ daemon: DaemonProcess) throws -> Binaries.Outcome {
    try Binaries.client(["submit", "GET", url, "--max-attempts", "1", "--wait"], socket: daemon.socket, timeout: 20)
}

/// A daemon whose configuration file is `toml`, run by `launcher` when given, as `owner` (a uid its
/// own directory is given to) when given.
private func withDaemon(
    _ toml: String, in directory: String, launcher: [String] = [], owner: uid_t? = nil, _ body: (DaemonProcess) throws -> Void
) throws {
    let file = directory + "/reqd.toml"
    try toml.write(toFile: file, atomically: true, encoding: .utf8)
    let state = directory + "/d\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
    if let owner { #expect(chown(state, owner, gid_t(owner)) == 0) }
    let daemon = try DaemonProcess(directory: state, extraArguments: ["--config", file], launcher: launcher)
    defer { daemon.stop() }
    try body(daemon)
}

@Suite("ca_file, client_cert and client_key against a local TLS server with a throwaway CA", .serialized)
struct TLSBinaryTests {
    @Test("refused without ca_file, naming the certificate problem; accepted with the CA in the target's ca_file or in http.ca_file")
    func privateCA() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pki = try ThrowawayPKI(in: directory)
        let server = try TestHTTPServer(tls: try pki.serverTLS(requireClient: false)) { _ in TestHTTPServer.Reply(body: "{}") }
        defer { server.shutdown() }
        let url = server.url("/tls")
        #expect(url.hasPrefix("https://127.0.0.1:"))
        try withDaemon("", in: directory) { daemon in
            let refused = try submitOnce(url, daemon)
            #expect(refused.status != 0)
            #expect(refused.stdout.contains("certificate could not be verified (CERTIFICATE_VERIFY_FAILED"), "\(refused.stdout) \(refused.stderr)")
        }
        try withDaemon("[targets.\"127.0.0.1:\(server.port)\"]\nca_file = \"\(pki.caFile)\"\n", in: directory) { daemon in
            let accepted = try submitOnce(url, daemon)
            #expect(accepted.status == 0, "\(accepted.stdout) \(accepted.stderr)")
        }
        try withDaemon("[http]\nca_file = \"\(pki.caFile)\"\n[targets.default]\nca_only = true\n", in: directory) { daemon in
            let accepted = try submitOnce(url, daemon)
            #expect(accepted.status == 0, "\(accepted.stdout) \(accepted.stderr)")
        }
        #expect(server.records(path: "/tls").count == 2, "the refused attempt never reached the handler")
    }

    @Test("a development server's self-signed certificate: refused without ca_file, accepted with the certificate itself as ca_file, ca_only or not")
    func selfSignedLeaf() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let leaf = try ThrowawayPKI(in: directory).selfSignedLeaf()
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(leaf.cert).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: leaf.key, format: .pem)))
        let server = try TestHTTPServer(tls: tls) { _ in TestHTTPServer.Reply(body: "{}") }
        defer { server.shutdown() }
        let url = server.url("/dev")
        try withDaemon("", in: directory) { daemon in
            let refused = try submitOnce(url, daemon)
            #expect(refused.status != 0 && refused.stdout.contains("CERTIFICATE_VERIFY_FAILED"), "\(refused.stdout) \(refused.stderr)")
        }
        for only in ["false", "true"] {
            try withDaemon("[targets.\"127.0.0.1\"]\nca_file = \"\(leaf.cert)\"\nca_only = \(only)\n", in: directory) { daemon in
                let accepted = try submitOnce(url, daemon)
                #expect(accepted.status == 0, "ca_only = \(only): \(accepted.stdout) \(accepted.stderr)")
            }
        }
        #expect(server.records(path: "/dev").count == 2)
    }

    @Test("SIGHUP reads the TLS files again: a ca_file rewritten in place with the right CA is trusted after the reload")
    func reloadRereadsTLSFiles() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in ["right", "other"] { try FileManager.default.createDirectory(atPath: directory + "/" + name, withIntermediateDirectories: false) }
        let pki = try ThrowawayPKI(in: directory + "/right")
        let other = try ThrowawayPKI(in: directory + "/other")
        let server = try TestHTTPServer(tls: try pki.serverTLS(requireClient: true)) { _ in TestHTTPServer.Reply(body: "{}") }
        defer { server.shutdown() }
        let trusted = directory + "/trusted.pem"
        try FileManager.default.copyItem(atPath: other.caFile, toPath: trusted)
        let file = directory + "/reqd.toml"
        let table = "[targets.\"127.0.0.1:\(server.port)\"]\nca_file = \"\(trusted)\"\nca_only = true\n"
            + "client_cert = \"\(pki.clientCert)\"\nclient_key = \"\(pki.clientKey)\"\n"
        try table.write(toFile: file, atomically: true, encoding: .utf8)
        let log = directory + "/reqd.log"
        let daemon = try DaemonProcess(directory: directory, extraArguments: ["--config", file], logFile: log)
        defer { daemon.stop() }
        let refused = try submitOnce(server.url("/before"), daemon)
        #expect(refused.status != 0 && refused.stdout.contains("CERTIFICATE_VERIFY_FAILED"), "\(refused.stdout)")
        try Data(contentsOf: URL(fileURLWithPath: pki.caFile)).write(to: URL(fileURLWithPath: trusted))
        daemon.reload(expecting: "configuration reloaded", count: 1, in: log)
        let accepted = try submitOnce(server.url("/after"), daemon)
        #expect(accepted.status == 0, "\(accepted.stdout) \(accepted.stderr)")
        #expect(server.records(path: "/before").isEmpty && server.records(path: "/after").count == 1)
    }

    @Test("a server that requires a client certificate refuses without one and accepts with client_cert and client_key")
    func clientCertificate() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pki = try ThrowawayPKI(in: directory)
        let server = try TestHTTPServer(tls: try pki.serverTLS(requireClient: true)) { _ in TestHTTPServer.Reply(body: "{}") }
        defer { server.shutdown() }
        let table = "[targets.\"127.0.0.1:\(server.port)\"]\nca_file = \"\(pki.caFile)\"\n"
        try withDaemon(table, in: directory) { daemon in
            let refused = try submitOnce(server.url("/mtls"), daemon)
            #expect(refused.status != 0, "\(refused.stdout)")
        }
        try withDaemon(table + "client_cert = \"\(pki.clientCert)\"\nclient_key = \"\(pki.clientKey)\"\n", in: directory) { daemon in
            let accepted = try submitOnce(server.url("/mtls"), daemon)
            #expect(accepted.status == 0, "\(accepted.stdout) \(accepted.stderr)")
        }
        #expect(server.records(path: "/mtls").count == 1)
    }

    @Test(
        "ca_only drops the system's roots: a server that a system root signed is accepted without ca_file and with it, and refused with ca_only",
        .enabled(if: getuid() == 0, "binding a bundle over the system's in a private mount namespace needs root (CI runs as root)"))
    func caOnlyDropsSystemRoots() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in ["system", "private"] { try FileManager.default.createDirectory(atPath: directory + "/" + name, withIntermediateDirectories: false) }
        // The daemon sees the first CA as the system's only root: its bundle is bound over the
        // system's bundle in a mount namespace of the daemon's own.
        let system = try ThrowawayPKI(in: directory + "/system")
        let privateCA = try ThrowawayPKI(in: directory + "/private")
        let bundle = "/etc/ssl/certs/ca-certificates.crt"
        try #require(FileManager.default.fileExists(atPath: bundle), "the system's CA bundle, which NIOSSL reads")
        let launcher = [
            "/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c", #"mount --bind "$0" "$1" && shift && exec "$@""#,
            system.caFile, bundle,
        ]
        let server = try TestHTTPServer(tls: try system.serverTLS(requireClient: false)) { _ in TestHTTPServer.Reply(body: "{}") }
        defer { server.shutdown() }
        let url = server.url("/roots")
        let table = "[targets.\"127.0.0.1:\(server.port)\"]\nca_file = \"\(privateCA.caFile)\"\n"
        try withDaemon("", in: directory, launcher: launcher) { daemon in
            let accepted = try submitOnce(url, daemon)
            #expect(accepted.status == 0, "the system's roots: \(accepted.stdout) \(accepted.stderr)")
        }
        try withDaemon(table, in: directory, launcher: launcher) { daemon in
            let accepted = try submitOnce(url, daemon)
            #expect(accepted.status == 0, "ca_file adds to the system's roots: \(accepted.stdout) \(accepted.stderr)")
        }
        try withDaemon(table + "ca_only = true\n", in: directory, launcher: launcher) { daemon in
            let refused = try submitOnce(url, daemon)
            #expect(refused.status != 0 && refused.stdout.contains("CERTIFICATE_VERIFY_FAILED"), "\(refused.stdout) \(refused.stderr)")
        }
        #expect(server.records(path: "/roots").count == 2, "the refused attempt never reached the handler")
        let host = try String(contentsOfFile: bundle, encoding: .utf8)
        #expect(!host.contains(try String(contentsOfFile: system.caFile, encoding: .utf8)), "the host's bundle is untouched")
    }

    @Test(
        "a daemon run as another user reads client_key and ca_file readable by that user alone, and refuses, naming the file, a key it cannot read",
        .enabled(if: getuid() == 0, "running the daemon as another uid needs root (CI runs as root)"))
    func keyFilesOfTheDaemonsUser() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pki = try ThrowawayPKI(in: directory)
        let user: uid_t = 65534
        let asUser = ["/usr/bin/setpriv", "--reuid=\(user)", "--regid=\(user)", "--clear-groups"]
        let (key, ca) = (directory + "/own.key", directory + "/own-ca.pem")
        for (from, to) in [(pki.clientKey, key), (pki.caFile, ca)] {
            try FileManager.default.copyItem(atPath: from, toPath: to)
            #expect(chown(to, user, gid_t(user)) == 0)
            #expect(chmod(to, 0o600) == 0)
        }
        let server = try TestHTTPServer(tls: try pki.serverTLS(requireClient: true)) { _ in TestHTTPServer.Reply(body: "{}") }
        defer { server.shutdown() }
        let table = "[targets.\"127.0.0.1:\(server.port)\"]\nca_file = \"\(ca)\"\nclient_cert = \"\(pki.clientCert)\"\n"
        try withDaemon(table + "client_key = \"\(key)\"\n", in: directory, launcher: asUser, owner: user) { daemon in
            let accepted = try submitOnce(server.url("/own"), daemon)
            #expect(accepted.status == 0, "\(accepted.stdout) \(accepted.stderr)")
        }
        #expect(server.records(path: "/own").count == 1)

        // The throwaway PKI's own key is root's, mode 0600: the other user cannot read it.
        let file = directory + "/reqd.toml"
        try (table + "client_key = \"\(pki.clientKey)\"\n").write(toFile: file, atomically: true, encoding: .utf8)
        let refused = try Binaries.run(asUser[0], Array(asUser.dropFirst()) + [Binaries.reqd, "--config", file, "--check-config"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("client_key") && refused.stderr.contains(pki.clientKey), "\(refused.stderr)")
        #expect(refused.stderr.contains("the daemon's user cannot read it"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("BEGIN"), "no file contents in the error")
    }

    @Test("over HTTP/2 the private attempt tag never reaches the server, and the attempt log still names the address")
    func http2TagRemoved() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pki = try ThrowawayPKI(in: directory)
        let server = try TestHTTPServer(tls: try pki.serverTLS(requireClient: false), http2: true) { _ in TestHTTPServer.Reply(body: "{}") }
        defer { server.shutdown() }
        try withDaemon("[targets.\"127.0.0.1:\(server.port)\"]\nca_file = \"\(pki.caFile)\"\n", in: directory) { daemon in
            for path in ["/h2/1", "/h2/2"] {
                let accepted = try submitOnce(server.url(path), daemon)
                #expect(accepted.status == 0, "\(accepted.stdout) \(accepted.stderr)")
            }
            let records = server.records.filter { $0.path.hasPrefix("/h2/") }
            try #require(records.count == 2)
            #expect(records.allSatisfy { $0.version == "HTTP/2.0" }, "\(records.map(\.version))")
            #expect(server.connectionCount == 1, "both requests were streams of one connection")
            #expect(records.allSatisfy { $0.header("x-reqd-attempt") == nil }, "\(records.map(\.headers))")
            for record in records {
                let job = try #require(record.header("Idempotency-Key"))
                let status = try Binaries.client(["status", job, "--attempts"], socket: daemon.socket)
                #expect(status.stdout.contains("127.0.0.1:\(server.port)  status 200"), "\(status.stdout)")
            }
        }
    }

    @Test("bad TLS files are refused naming the key and the file, never their contents")
    func badFiles() throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pki = try ThrowawayPKI(in: directory)
        let file = directory + "/reqd.toml"
        for (table, words) in [
            ("[targets.default]\nca_file = \"\(directory)/none.pem\"", "targets.default.ca_file"),
            ("[targets.default]\nca_file = \"\(pki.clientKey)\"", "holds no PEM certificate"),
            ("[targets.default]\nclient_cert = \"\(pki.clientCert)\"", "needs client_cert and client_key both"),
            ("[targets.default]\nclient_cert = \"\(pki.clientCert)\"\nclient_key = \"\(pki.caFile)\"", "holds no PEM private key"),
            ("[targets.default]\nca_only = true", "needs a ca_file"),
            ("[targets.default]\nclient_cert = \"\(pki.clientCert)\"\nclient_key = \"\(pki.serverKey)\"", "does not go with client_cert"),
            ("[http]\nca_file = \"relative.pem\"", "http.ca_file"),
        ] {
            try table.write(toFile: file, atomically: true, encoding: .utf8)
            let outcome = try Binaries.run(Binaries.reqd, ["--config", file, "--check-config"])
            #expect(outcome.status != 0)
            #expect(outcome.stderr.contains(words), "\(outcome.stderr)")
            #expect(!outcome.stderr.contains("BEGIN"), "no file contents in the error")
        }
    }
}
