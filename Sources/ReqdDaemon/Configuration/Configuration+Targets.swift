import Foundation
import ReqdCore

/// The `[targets."HOST"]` tables: keys the settings table cannot list, since the file names the hosts.
///
/// Each is `targets.NAME.KEY`, where NAME is `default`, or a quoted `"HOST"`, `"HOST:PORT"` or
/// `"*.DOMAIN"` (a bare NAME works where TOML allows one). Every key is reloadable.
extension Configuration {
    /// The keys a target table takes, named in the errors that refuse another.
    static let targetKeys = [
        "rate", "burst", "concurrency", "decompress", "breaker_failure_ratio", "breaker_min_requests", "breaker_window",
        "breaker_open_for", "sign_secret_file",
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
            guard let ratio, ratio > 0, ratio <= 1 else {
                throw .invalidSetting(key, "must be a share of failed requests above 0 and at most 1, such as 0.7")
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
        case "sign_secret_file":
            guard case .string(let path) = value, path.hasPrefix("/") else {
                throw .invalidSetting(key, "must be the absolute path of a file of whsec_ secrets, one a line")
            }
            let secrets = try Self.readSecrets(path, key: key)
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

    /// Reads a `sign_secret_file`: at start, and again at every reload. Its errors name the file
    /// and a line's number, never a secret.
    private static func readSecrets(_ path: String, key: String) throws(DaemonError) -> SigningSecrets {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .invalidSetting(key, "\(path): \(access(path, F_OK) == 0 ? "the daemon's user cannot read it" : "no such file")")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw .invalidSetting(key, "\(path): it is not UTF-8 text") }
        do {
            return try SigningSecrets(parsing: text)
        } catch {
            throw .invalidSetting(key, "\(path): \(error.message)")
        }
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
