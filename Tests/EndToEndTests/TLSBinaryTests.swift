import Foundation
import NIOSSL
import ReqdTestSupport
import Testing

/// Submits one attempt to `url` and waits: the exit status and what the client printed.
private func submitOnce(_ url: String, _ daemon: DaemonProcess) throws -> Binaries.Outcome {
    try Binaries.client(["submit", "GET", url, "--max-attempts", "1", "--wait"], socket: daemon.socket, timeout: 20)
}

/// A daemon whose configuration file is `toml`.
private func withDaemon(_ toml: String, in directory: String, _ body: (DaemonProcess) throws -> Void) throws {
    let file = directory + "/reqd.toml"
    try toml.write(toFile: file, atomically: true, encoding: .utf8)
    let state = directory + "/d\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
    let daemon = try DaemonProcess(directory: state, extraArguments: ["--config", file])
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
