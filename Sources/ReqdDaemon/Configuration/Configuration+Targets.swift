import ReqdCore

/// The `[targets."HOST"]` tables: keys the settings table cannot list, since the file names the hosts.
///
/// Each is `targets.NAME.KEY`, where NAME is `default`, or a quoted `"HOST"`, `"HOST:PORT"` or
/// `"*.DOMAIN"` (a bare NAME works where TOML allows one). Every key is reloadable.
extension Configuration {
    /// The keys a target table takes, named in the errors that refuse another.
    static let targetKeys = ["rate", "burst", "concurrency", "decompress"]

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
