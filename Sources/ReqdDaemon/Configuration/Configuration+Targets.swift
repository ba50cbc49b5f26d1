import Foundation
import NIOSSL
import ReqdCore

/// The `[targets."HOST"]` tables: keys the settings table cannot list, since the file names the hosts.
///
/// Each is `targets.NAME.KEY`, where NAME is `default`, or a quoted `"HOST"`, `"HOST:PORT"` or
/// `"*.DOMAIN"` (a bare NAME works where TOML allows one). Every key is reloadable.
extension Configuration {
    /// The keys a target table takes, named in the errors that refuse another.
    static let targetKeys = [
        "rate", "burst", "concurrency", "decompress", "breaker_failure_ratio", "breaker_min_requests", "breaker_window",
        "breaker_open_for", "sign_secret_file", "ca_file", "ca_only", "client_cert", "client_key",
    ]

    /// Whether `key` belongs to a target table.
    static func isTargetKey(_ key: String) -> Bool { key.hasPrefix("targets.") }

    /// Sets one `targets.NAME.KEY`.
    mutating func setTarget(_ key: String, _ value: TOMLSubset.Value) throws(DaemonError) {
        let rest = key.dropFirst("targets.".count)
        guard let (name, field) = Self.targetNameAndField(rest) else {
            throw DaemonError(
                .unknownSetting,
                "unknown setting '\(key.prefix(300))': a target table is [targets.\"HOST\"], [targets.\"HOST:PORT\"], "
                    + "[targets.\"*.DOMAIN\"] or [targets.default], with the keys \(Self.targetKeys.joined(separator: ", "))",
                key: String(key.prefix(300)))
        }
        let change: (inout TargetLimits) -> Void
        switch field {
        case "rate":
            guard case .string(let text) = value, let rate = TargetRate(text) else {
                throw .invalidSetting(key, "must be a rate such as \"20/s\", \"600/m\" or \"3600/h\" (1 to 1000000 a period)")
            }
            change = { $0.rate = rate }
        case "burst":
            let burst = try Setting.Kind<Int>.integer(1...1_000_000).parse(key, value)
            change = { $0.burst = burst }
        case "concurrency":
            let concurrency = try Setting.Kind<Int>.integer(1...10_000).parse(key, value)
            change = { $0.concurrency = concurrency }
        case "decompress":
            let decompress = try Setting.Kind<Bool>.boolean.parse(key, value)
            change = { $0.decompress = decompress }
        case "breaker_failure_ratio":
            let ratio: Double?
            switch value {
            case .float(let number): ratio = number
            case .integer(let number): ratio = Double(number)
            case .string(let text): ratio = Double(text)
            case .boolean, .array: ratio = nil
            }
            guard let ratio, ratio >= 0, ratio <= 1 else {
                throw .invalidSetting(key, "must be a share of failed requests from 0 (no breaker) to 1, such as 0.7")
            }
            change = { $0.breakerFailureRatio = ratio }
        case "breaker_min_requests":
            let count = try Setting.Kind<Int>.integer(1...1_000_000).parse(key, value)
            change = { $0.breakerMinRequests = count }
        case "breaker_window":
            let window = try Setting.Kind<Int64>.duration().parse(key, value)
            guard window >= 1_000_000_000, window <= 86_400_000_000_000 else {
                throw .invalidSetting(key, "must be from 1s to 24h: the breaker counts requests by whole seconds")
            }
            change = { $0.breakerWindowNanos = window }
        case "breaker_open_for":
            let openFor = try Setting.Kind<Int64>.duration().parse(key, value)
            guard openFor <= 86_400_000_000_000 else { throw .invalidSetting(key, "must be at most 24h") }
            change = { $0.breakerOpenForNanos = openFor }
        case "ca_file", "client_cert", "client_key":
            // "" stays "" (none, whatever [targets.default] gives), unlike a setting's default.
            let path = try Setting.Kind<String?>.absolutePathOrDefault.parse(key, value) ?? ""
            switch field {
            case "ca_file": change = { $0.tls.caFile = path }
            case "client_cert": change = { $0.tls.clientCertFile = path }
            default: change = { $0.tls.clientKeyFile = path }
            }
        case "ca_only":
            let only = try Setting.Kind<Bool>.boolean.parse(key, value)
            change = { $0.tls.caOnly = only }
        case "sign_secret_file":
            let path = try Setting.Kind<String?>.absolutePathOrDefault.parse(key, value) ?? ""
            let secrets = path.isEmpty ? nil : try Self.readSecrets(path, key: key)
            change = {
                $0.signSecretFile = path
                $0.signing = secrets
            }
        default:
            throw DaemonError(
                .unknownSetting, "unknown setting '\(key.prefix(300))': a target table takes \(Self.targetKeys.joined(separator: ", "))",
                key: String(key.prefix(300)))
        }
        do {
            try scheduler.targets.update(name, change)
        } catch {
            throw .invalidSetting(key, error.message)
        }
    }

    /// Reads the PEM files every TLS setting names (`http.ca_file`, each table's `ca_file`,
    /// `client_cert` and `client_key`) and checks them, and that a client certificate comes with
    /// its key: at start, and again at every reload. Errors name the key and the file.
    mutating func readTLSFiles() throws(DaemonError) {
        try Self.readTLS(&scheduler.targets.defaultTLS, table: nil)
        try scheduler.targets.updateAll { name, limits throws(DaemonError) in
            try Self.readTLS(&limits.tls, table: name)
        }
        for (name, limits) in [("default", scheduler.targets.defaults)] + scheduler.targets.tables.sorted(by: { $0.key < $1.key }) {
            let tls = name == "default" ? limits.tls : limits.tls.over(scheduler.targets.defaults.tls)
            let prefix = "targets.\(TOMLSubset.written(key: name))."
            let hasCert = TargetTLS.names(tls.clientCertFile)
            if hasCert != TargetTLS.names(tls.clientKeyFile) {
                throw .invalidSetting(prefix + (hasCert ? "client_cert" : "client_key"), "needs client_cert and client_key both")
            }
            let resolved = tls.over(scheduler.targets.defaultTLS)
            if tls.caOnly == true, !TargetTLS.names(resolved.caFile) {
                throw .invalidSetting(prefix + "ca_only", "needs a ca_file (here, in [targets.default] or http.ca_file) to trust instead of the system's roots")
            }
            do {
                // Made here as the executor makes it: a key that does not belong to its certificate fails now, not at every request.
                if hasCert { _ = try NIOSSLContext(configuration: try TLSConfiguration.forTarget(resolved)) }
            } catch {
                throw .invalidSetting(
                    prefix + "client_key", "\(resolved.clientKeyFile ?? "") does not go with client_cert \(resolved.clientCertFile ?? "") (\(error))")
            }
        }
    }

    private static func readTLS(_ tls: inout TargetTLS, table: String?) throws(DaemonError) {
        func key(_ field: String) -> String { table.map { "targets.\(TOMLSubset.written(key: $0)).\(field)" } ?? "http.\(field)" }
        if let path = tls.caFile, !path.isEmpty {
            let bytes = try readFile(path, key: key("ca_file"))
            guard (try? NIOSSLCertificate.fromPEMBytes(bytes))?.isEmpty == false else {
                throw .invalidSetting(key("ca_file"), "\(path): it holds no PEM certificate")
            }
            tls.caPEM = bytes
        }
        if let path = tls.clientCertFile, !path.isEmpty {
            let bytes = try readFile(path, key: key("client_cert"))
            guard (try? NIOSSLCertificate.fromPEMBytes(bytes))?.isEmpty == false else {
                throw .invalidSetting(key("client_cert"), "\(path): it holds no PEM certificate")
            }
            tls.clientCertPEM = bytes
        }
        if let path = tls.clientKeyFile, !path.isEmpty {
            let bytes = try readFile(path, key: key("client_key"))
            guard (try? NIOSSLPrivateKey(bytes: bytes, format: .pem)) != nil else {
                throw .invalidSetting(key("client_key"), "\(path): it holds no PEM private key (an encrypted key is not read)")
            }
            tls.clientKeyPEM = bytes
        }
    }

    /// A file's bytes; the error says whether it is missing or unreadable, never what it holds.
    private static func readFile(_ path: String, key: String) throws(DaemonError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .invalidSetting(key, "\(path): \(access(path, F_OK) == 0 ? "the daemon's user cannot read it" : "no such file")")
        }
        return Array(data)
    }

    /// Reads a `sign_secret_file`: at start, and again at every reload. Its errors name the file
    /// and a line's number, never a secret.
    private static func readSecrets(_ path: String, key: String) throws(DaemonError) -> SigningSecrets {
        guard let text = String(validating: try readFile(path, key: key), as: UTF8.self) else {
            throw .invalidSetting(key, "\(path): it is not UTF-8 text")
        }
        do {
            return try SigningSecrets(parsing: text)
        } catch {
            throw .invalidSetting(key, "\(path): \(error.message)")
        }
    }

    /// The table a `targets.NAME.KEY` key names, as written and in its canonical spelling; nil for
    /// `[targets.default]` and for a key that names no table.
    static func targetTable(of key: String) -> (written: String, canonical: String)? {
        guard isTargetKey(key), let (name, _) = targetNameAndField(key.dropFirst("targets.".count)), name != "default",
            let canonical = TargetRules.normalizedName(name)
        else { return nil }
        return (name, canonical)
    }

    /// Splits `NAME.KEY` where NAME may be quoted (`"api.example.com".rate`).
    private static func targetNameAndField(_ text: Substring) -> (name: String, field: String)? {
        guard let dot = text.lastIndex(of: ".") else { return nil }
        var name = text[..<dot]
        let field = String(text[text.index(after: dot)...])
        if name.hasPrefix("\"") {
            guard name.count >= 2, name.hasSuffix("\"") else { return nil }
            name = name.dropFirst().dropLast()
            guard !name.contains("\""), !name.contains("\\") else { return nil }
        } else if name.contains(".") || name.isEmpty {
            return nil
        }
        return (String(name), field)
    }
}
