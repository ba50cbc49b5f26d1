import Foundation
import NIOSSL
import ReqdCore
import Testing
@testable import ReqdDaemon

/// A throwaway self-signed CA certificate, PEM, made with the openssl command.
private func throwawayCA() throws -> [UInt8] {
    let directory = TemporaryDirectory()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = [
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", directory.path + "/ca.key",
        "-out", directory.path + "/ca.pem", "-days", "1", "-subj", "/CN=reqd unit CA",
    ]
    process.standardError = FileHandle(forWritingAtPath: "/dev/null")
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0)
    return Array(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/ca.pem")))
}

@Suite("A target's TLS configuration: whose roots it trusts")
struct TargetTLSConfigurationTests {
    @Test("ca_file adds its CA to the system's roots; with ca_only it is the only root; verification stays full")
    func trustRoots() throws {
        let pem = try throwawayCA()
        let roots = try NIOSSLCertificate.fromPEMBytes(pem)
        var tls = TargetTLS()
        tls.caFile = "/etc/reqd/ca.pem"
        tls.caPEM = pem

        let added = try TLSConfiguration.forTarget(tls)
        #expect(added.trustRoots == .default, "the system's roots stay")
        #expect(added.additionalTrustRoots == [.certificates(roots)])
        #expect(added.certificateVerification == .fullVerification)

        tls.caOnly = true
        let only = try TLSConfiguration.forTarget(tls)
        #expect(only.trustRoots == .certificates(roots), "the file's CA in place of the system's roots")
        #expect(only.additionalTrustRoots.isEmpty)
        #expect(only.certificateVerification == .fullVerification)
    }
}
