import Foundation
import NIOSSL
import Testing

/// A throwaway CA, a server certificate for 127.0.0.1 and a client certificate it signed, made with
/// the openssl command in a temporary directory; removed with it.
struct ThrowawayPKI {
    let directory: String
    var caFile: String { directory + "/ca.pem" }
    var serverCert: String { directory + "/server.pem" }
    var serverKey: String { directory + "/server.key" }
    var clientCert: String { directory + "/client.pem" }
    var clientKey: String { directory + "/client.key" }

    init(in directory: String) throws {
        self.directory = directory
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try Self.openssl(["req", "-x509"] + ec + ["-keyout", directory + "/ca.key", "-out", caFile, "-days", "2", "-subj", "/CN=reqd test CA"])
        for (name, usage, subject) in [("server", "serverAuth", "subjectAltName=IP:127.0.0.1"), ("client", "clientAuth", "subjectAltName=DNS:reqd-client")] {
            try Self.openssl(["req"] + ec + ["-keyout", "\(directory)/\(name).key", "-out", "\(directory)/\(name).csr", "-subj", "/CN=\(name)"])
            try "\(subject)\nbasicConstraints=CA:FALSE\nextendedKeyUsage=\(usage)\n".write(toFile: "\(directory)/\(name).ext", atomically: true, encoding: .utf8)
            try Self.openssl([
                "x509", "-req", "-in", "\(directory)/\(name).csr", "-CA", caFile, "-CAkey", directory + "/ca.key", "-CAcreateserial",
                "-out", "\(directory)/\(name).pem", "-days", "2", "-extfile", "\(directory)/\(name).ext",
            ])
        }
        chmod(clientKey, 0o600)
    }

    /// A self-signed server certificate for 127.0.0.1 (no CA above it), as a development server
    /// has: its certificate and key files.
    func selfSignedLeaf() throws -> (cert: String, key: String) {
        let (cert, key) = (directory + "/leaf.pem", directory + "/leaf.key")
        try Self.openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert,
            "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            "-addext", "basicConstraints=critical,CA:FALSE", "-addext", "extendedKeyUsage=serverAuth",
        ])
        return (cert, key)
    }

    private static func openssl(_ arguments: [String]) throws {
        let outcome = try Binaries.run("/usr/bin/openssl", arguments)
        try #require(outcome.status == 0, "openssl \(arguments.first ?? ""): \(outcome.stderr)")
    }

    /// The server's TLS: its certificate, and with `requireClient`, a client certificate signed by the CA.
    func serverTLS(requireClient: Bool) throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(serverCert).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: serverKey, format: .pem)))
        if requireClient {
            tls.certificateVerification = .noHostnameVerification
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
        }
        return tls
    }
}
