import Foundation
import ReqdCore
import ReqdProtocol

extension Setting {
    /// A kind of value a setting takes: how it is read from the file or a string, and shown in the docs.
    ///
    /// A string (from the environment or `--set`) is accepted wherever the file would give a number, so
    /// `REQD_JOBS_MAX_ACTIVE=10` works. Every refusal names the key.
    struct Kind<Value: Equatable & Sendable>: Sendable {
        let parse: @Sendable (_ key: String, TOMLSubset.Value) throws(DaemonError) -> Value
        let show: @Sendable (Value) -> TOMLSubset.Value
    }
}

extension Setting.Kind where Value == Int64 {
    /// A duration in nanoseconds, written `"1h30m"` (or a number of seconds); zero only when
    /// `allowZero`, and never below `minimum` nor above `maximum` when they are given.
    static func duration(allowZero: Bool = false, minimum: Int64? = nil, maximum: Int64? = nil) -> Self {
        Self(
            parse: { key, value throws(DaemonError) in
                let nanos: Int64?
                switch value {
                case .string(let text): nanos = DurationText.parseNanoseconds(text)
                case .integer(let seconds): nanos = DurationText.fromSeconds(Double(seconds))
                case .float(let seconds): nanos = DurationText.fromSeconds(seconds)
                case .boolean, .array: nanos = nil
                }
                guard let nanos, allowZero ? nanos >= 0 : nanos > 0 else {
                    throw .invalidSetting(
                        key, "must be a \(allowZero ? "non-negative" : "positive") duration such as \"1s\", \"15m\" or \"1h30m\"")
                }
                if let minimum, nanos < minimum {
                    throw .invalidSetting(key, "must be at least \(DurationText.format(nanoseconds: minimum))")
                }
                if let maximum, nanos > maximum {
                    throw .invalidSetting(key, "must be at most \(DurationText.format(nanoseconds: maximum))")
                }
                return nanos
            },
            show: { .string(DurationText.format(nanoseconds: $0)) })
    }
}

extension Setting.Kind where Value == Int {
    /// A whole number within `range`.
    static func integer(_ range: ClosedRange<Int64>) -> Self {
        Self(
            parse: { key, value throws(DaemonError) in
                let number: Int64?
                switch value {
                case .integer(let integer): number = integer
                case .string(let text): number = Int64(text)
                default: number = nil
                }
                guard let number, range.contains(number) else {
                    throw .invalidSetting(key, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
                }
                return Int(number)
            },
            show: { .integer(Int64($0)) })
    }
}

extension Setting.Kind where Value == Bool {
    /// `true` or `false` (also as a string from the environment or `--set`).
    static var boolean: Self {
        Self(
            parse: { key, value throws(DaemonError) in
                switch value {
                case .boolean(let flag): return flag
                case .string("true"): return true
                case .string("false"): return false
                default: throw .invalidSetting(key, "must be true or false")
                }
            },
            show: { .boolean($0) })
    }
}

extension Setting.Kind where Value == UInt32 {
    /// A file mode up to `0777`: an octal string such as `"0660"`, or a TOML integer (`0o660`).
    static var octalMode: Self {
        Self(
            parse: { key, value throws(DaemonError) in
                let mode: Int64
                switch value {
                case .integer(let number): mode = number
                case .string(let text):
                    guard let parsed = Int64(text, radix: 8) else {
                        throw .invalidSetting(key, "must be an octal mode such as \"0660\"; got '\(text)'")
                    }
                    mode = parsed
                default: throw .invalidSetting(key, "must be an octal mode such as \"0660\"")
                }
                guard (0...0o777).contains(mode) else { throw .invalidSetting(key, "must be between 0000 and 0777") }
                return UInt32(mode)
            },
            show: { mode in
                let digits = String(mode, radix: 8)
                return .string(String(repeating: "0", count: max(0, 4 - digits.count)) + digits)
            })
    }
}

extension Setting.Kind where Value == String? {
    /// An absolute path; the empty string (nil) selects the default place.
    static var absolutePathOrDefault: Self {
        Self(
            parse: { key, value throws(DaemonError) in
                let text = try value.text(for: key)
                guard text.isEmpty || text.hasPrefix("/") else {
                    throw .invalidSetting(key, "must be an absolute path; got '\(text)'")
                }
                return text.isEmpty ? nil : text
            },
            show: { .string($0 ?? "") })
    }

    /// Any text; the empty string (nil) means none.
    static var textOrNone: Self {
        Self(
            parse: { key, value throws(DaemonError) in
                let text = try value.text(for: key)
                return text.isEmpty ? nil : text
            },
            show: { .string($0 ?? "") })
    }
}

extension Setting.Kind where Value == PostgresAddress? {
    /// A libpq-style URL; the empty string (nil) for none. It shows without its password.
    static var postgresAddress: Self {
        Self(
            parse: { key, value throws(DaemonError) in
                let text = try value.text(for: key)
                return text.isEmpty ? nil : try PostgresAddress(parsing: text)
            },
            show: { .string($0?.description ?? "") })
    }
}

extension Setting.Kind where Value == String {
    /// A cluster's name: a lowercase letter, then lowercase letters, digits or `_`, 40 at most.
    static var clusterName: Self {
        Self(
            parse: { key, value throws(DaemonError) in
                let text = try value.text(for: key)
                guard StorageSettings.isValidClusterName(text) else {
                    throw .invalidSetting(key, "must be a lowercase letter, then lowercase letters, digits or _, 40 at most; got '\(text)'")
                }
                return text
            },
            show: { .string($0) })
    }
}

extension Setting.Kind where Value == MetricsListen {
    /// Where the metrics endpoint listens: empty for nowhere, a Unix socket path, or HOST:PORT on loopback.
    static var metricsListen: Self {
        Self(
            parse: { key, value throws(DaemonError) in try MetricsListen(parsing: try value.text(for: key)) },
            show: { .string($0.description) })
    }
}

extension Setting.Kind where Value: RawRepresentable<String> & CaseIterable {
    /// One of the enumeration's raw values, such as `info` for a `Logger.Level`.
    static var choice: Self {
        Self(
            parse: { key, value throws(DaemonError) in
                let text = try value.text(for: key)
                guard let choice = Value(rawValue: text) else {
                    let names = Value.allCases.map(\.rawValue).joined(separator: ", ")
                    throw .invalidSetting(key, "must be one of \(names); got '\(text)'")
                }
                return choice
            },
            show: { .string($0.rawValue) })
    }
}

extension Setting.Kind where Value == [String] {
    /// A list of strings: a TOML array, or one string of comma-separated entries (from `--set` or
    /// the environment). `check` refuses the first entry it cannot read.
    static func list(_ check: @escaping @Sendable ([String]) throws(SchedulerError) -> Void) -> Self {
        Self(
            parse: { key, value throws(DaemonError) in
                let entries: [String]
                switch value {
                case .array(let elements):
                    entries = try elements.map { element throws(DaemonError) in
                        try element.text(for: key, "must be an array of strings such as [\"10.0.0.0/8\"]")
                            .trimmingCharacters(in: .whitespaces)
                    }
                case .string(let text):
                    entries = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                default: throw .invalidSetting(key, "must be an array of strings such as [\"10.0.0.0/8\"]")
                }
                do throws(SchedulerError) { try check(entries) } catch { throw .invalidSetting(key, error.message) }
                return entries
            },
            show: { .array($0.map(TOMLSubset.Value.string)) })
    }
}

extension TOMLSubset.Value {
    /// The string this value holds; any other value is refused as the value of `key`.
    fileprivate func text(for key: String, _ requirement: String = "must be a string") throws(DaemonError) -> String {
        guard case .string(let text) = self else { throw .invalidSetting(key, requirement) }
        return text
    }
}
