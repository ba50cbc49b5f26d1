import Foundation

/// Builds a configuration from, in rising order of precedence: the embedded defaults, a file,
/// `REQD_*` environment variables, and command-line overrides; and the proxies of the environment.
public struct ConfigurationLoader: Sendable {
    /// The configuration file, if any.
    public var file: String?
    /// The environment to read `REQD_*` overrides from.
    public var environment: [String: String]
    /// `key=value` overrides from flags, applied last.
    public var overrides: [(key: String, value: String)]

    public init(file: String?, environment: [String: String], overrides: [(key: String, value: String)] = []) {
        self.file = file
        self.environment = environment
        self.overrides = overrides
    }

    /// Reads and validates everything; errors name the key and where it came from.
    public func load() throws(DaemonError) -> Configuration {
        var configuration = Configuration()
        if let file {
            let text: String
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw DaemonError(
                    .configurationUnreadable, "cannot read configuration file \(file): \(error.localizedDescription)")
            }
            // Each target's first spelling in the file and its line, by canonical spelling.
            var tables: [String: (written: String, line: Int)] = [:]
            for (key, entry) in try TOMLSubset.parse(text, file: file).sorted(by: { $0.value.line < $1.value.line }) {
                do throws(DaemonError) {
                    if let table = Configuration.targetTable(of: key) {
                        if let first = tables[table.canonical], first.written != table.written {
                            throw DaemonError(
                                .invalidSetting,
                                "[targets.\(TOMLSubset.written(key: table.written))] and [targets.\(TOMLSubset.written(key: first.written))] "
                                    + "(its first key on line \(first.line)) are one target, \(table.canonical): merge them into one table",
                                key: key)
                        }
                        if tables[table.canonical] == nil { tables[table.canonical] = (table.written, entry.line) }
                    }
                    try configuration.set(key, entry.value)
                } catch {
                    throw error.from("\(file):\(entry.line)")
                }
            }
        }
        for key in Configuration.keys {
            let name = Configuration.environmentName(for: key)
            guard let value = environment[name] else { continue }
            do {
                try configuration.set(key, .string(value))
            } catch {
                throw error.from("environment \(name)")
            }
        }
        for (key, value) in overrides {
            guard Configuration.settingsByKey[key] != nil || Configuration.retiredKeys[key] != nil || Configuration.isTargetKey(key) else {
                throw .unknownSetting(key)
            }
            do {
                try configuration.set(key, .string(value))
            } catch {
                throw error.from("option for \(key)")
            }
        }
        try configuration.readTLSFiles()
        try configuration.validate()
        configuration.http.proxies = try ProxySettings(environment: environment)
        if configuration.http.proxies.isActive, configuration.scheduler.targetPolicy.isActive {
            throw DaemonError(
                .invalidSetting,
                "http.deny and http.allow cannot be used with a proxy (http_proxy, https_proxy) yet: the policy could not "
                    + "check where the proxy connects; unset one or the other",
                key: "http.deny")
        }
        return configuration
    }
}
