/// How requests to a target do TLS beyond the defaults: a private CA and a client certificate.
///
/// `ca_file` adds a PEM bundle to the system's trust roots, or with `ca_only` stands in for them;
/// `client_cert` and `client_key` present a certificate (mTLS). Verification is never turned off.
/// The files are named here and read by the daemon at start and at every reload into the PEM
/// fields; the key's bytes never appear in a description, a mirror, a log or a reply. An empty
/// path says "none", so a table can drop what `[targets.default]` or `http.ca_file` gives.
public struct TargetTLS: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The CA bundle's path. Naming another file (or none) forgets what the last one held, until
    /// it is read.
    public var caFile: String? { didSet { if caFile != oldValue { caPEM = nil } } }
    /// Whether `caFile` stands in for the system's roots rather than adding to them.
    public var caOnly: Bool?
    /// The client certificate's path (PEM, with its chain).
    public var clientCertFile: String? { didSet { if clientCertFile != oldValue { clientCertPEM = nil } } }
    /// The client key's path (PEM, unencrypted).
    public var clientKeyFile: String? { didSet { if clientKeyFile != oldValue { clientKeyPEM = nil } } }
    /// The files' contents, PEM.
    public var caPEM: [UInt8]?
    public var clientCertPEM: [UInt8]?
    public var clientKeyPEM: [UInt8]?

    /// Nothing beyond the system's roots.
    public init() {}

    /// Whether it asks for nothing beyond the system's roots.
    public var isEmpty: Bool { !Self.names(caFile) && !Self.names(clientCertFile) && !Self.names(clientKeyFile) && caOnly != true }

    /// Whether `path` names a file: set, and not the empty "none".
    public static func names(_ path: String?) -> Bool { path.map { !$0.isEmpty } ?? false }

    /// These settings, each file (with its contents) or flag left out taken from `fallback`.
    public func over(_ fallback: TargetTLS) -> TargetTLS {
        var filled = self
        if caFile == nil {
            filled.caFile = fallback.caFile
            filled.caPEM = fallback.caPEM
        }
        if clientCertFile == nil {
            filled.clientCertFile = fallback.clientCertFile
            filled.clientCertPEM = fallback.clientCertPEM
        }
        if clientKeyFile == nil {
            filled.clientKeyFile = fallback.clientKeyFile
            filled.clientKeyPEM = fallback.clientKeyPEM
        }
        filled.caOnly = caOnly ?? fallback.caOnly
        return filled
    }

    /// The files by their keys, never their contents.
    public var description: String {
        [("ca_file", caFile), ("client_cert", clientCertFile), ("client_key", clientKeyFile)]
            .compactMap { key, path in Self.names(path) ? "\(key) \(path ?? "")" : nil }
            .joined(separator: ", ") + (caOnly == true ? ", ca_only" : "")
    }

    /// The description's words, so that `dump` and the debugger show no key either.
    public var customMirror: Mirror { Mirror(self, children: ["files": description]) }

    /// Hashes the paths and sizes, not the contents: the executor looks its TLS configuration up
    /// by this value on every request. Equality still compares the contents.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(caFile)
        hasher.combine(caOnly)
        hasher.combine(clientCertFile)
        hasher.combine(clientKeyFile)
        hasher.combine(caPEM?.count)
        hasher.combine(clientCertPEM?.count)
        hasher.combine(clientKeyPEM?.count)
    }
}
