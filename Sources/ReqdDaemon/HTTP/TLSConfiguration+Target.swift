import NIOSSL
import ReqdCore

extension TLSConfiguration {
    /// A client configuration for a target's TLS settings: its CA bundle added to the system's
    /// roots (or, with `ca_only`, in their place) and its client certificate. Certificates are
    /// always verified.
    static func forTarget(_ tls: TargetTLS) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let ca = tls.caPEM {
            let roots = try NIOSSLCertificate.fromPEMBytes(ca)
            if tls.caOnly == true {
                configuration.trustRoots = .certificates(roots)
            } else {
                configuration.additionalTrustRoots = [.certificates(roots)]
            }
        }
        if let certificate = tls.clientCertPEM, let key = tls.clientKeyPEM {
            configuration.certificateChain = try NIOSSLCertificate.fromPEMBytes(certificate).map { .certificate($0) }
            configuration.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: key, format: .pem))
        }
        return configuration
    }
}
