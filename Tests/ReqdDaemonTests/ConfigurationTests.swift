import Foundation
import Logging
import ReqdCore
import Testing
@testable import ReqdDaemon

@Suite("Configuration")
struct ConfigurationTests {
    private func write(_ text: String, in directory: TemporaryDirectory) -> String {
        let path = directory.path + "/reqd.toml"
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    /// The repository's root, for the files the docs tests read.
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    @Test("the shipped config/reqd.toml parses and equals the embedded defaults")
    func shippedFileIsDefaults() throws {
        let configuration = try ConfigurationLoader(file: Self.root + "/config/reqd.toml", environment: [:]).load()
        #expect(configuration == Configuration())
    }

    @Test("config/reqd.toml lists every setting in the table's order, with its default and its reload mark")
    func shippedFileFollowsTable() throws {
        let text = try String(contentsOfFile: Self.root + "/config/reqd.toml", encoding: .utf8)
        let values = try TOMLSubset.parse(text, file: "reqd.toml")
        let documented = Self.keysWithComments(inTOML: text)
        #expect(documented.map(\.key) == Configuration.keys)
        for (key, comment) in documented {
            guard let setting = Configuration.settingsByKey[key] else { continue }
            #expect(values[key]?.value == setting.documentedValue(in: Configuration()), "default of \(key)")
            switch setting.effect {
            case .restart: #expect(!comment.contains("(reload"), "\(key) needs a restart, its comment says (reload")
            case .reload: #expect(comment.contains("(reload)"), "\(key) is reloadable, its comment lacks (reload)")
            case .reloadForNewConnections:
                #expect(comment.contains("(reload, new connections)"), "\(key) lacks (reload, new connections)")
            }
        }
    }

    @Test("the README's table lists every setting in the table's order, with its default, reload mark and meaning")
    func readmeFollowsTable() throws {
        let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
        let section = readme.components(separatedBy: "\n## Configuration\n").last?.components(separatedBy: "\n## ").first ?? ""
        let rows = section.split(separator: "\n").filter { $0.hasPrefix("| `") }.map {
            $0.dropFirst(2).dropLast(2).components(separatedBy: " | ")
        }
        #expect(rows.map { $0[0].trimmingCharacters(in: ["`"]) } == Configuration.keys)
        for row in rows where row.count == 4 {
            let key = row[0].trimmingCharacters(in: ["`"])
            guard let setting = Configuration.settingsByKey[key] else { continue }
            let shown = try TOMLSubset.parse("default = " + row[1].trimmingCharacters(in: ["`"]), file: "README.md")["default"]
            #expect(shown?.value == setting.documentedValue(in: Configuration()), "default of \(key)")
            #expect(row[2] == (setting.isReloadable ? "yes" : "no"), "reload mark of \(key)")
            #expect(row[3] == setting.meaning, "meaning of \(key)")
        }
    }

    @Test("every setting reads back its documented default, as the file's value and as an environment string")
    func documentedDefaultsRoundTrip() throws {
        for setting in Configuration.settings {
            let changed = try #require(Self.changed(setting), "no other value found for \(setting.key)")
            let shown = setting.documentedValue(in: Configuration())
            for value in [shown, .string(Self.text(of: shown))] {
                var configuration = changed.configuration
                try configuration.set(setting.key, value)
                #expect(configuration == Configuration(), "\(setting.key) from \(value)")
            }
        }
    }

    @Test("each key's environment variable is REQD_ and the key in capitals, dots as underscores, and it sets that key")
    func environmentNames() throws {
        #expect(Configuration.environmentName(for: "http.max_connections_per_host") == "REQD_HTTP_MAX_CONNECTIONS_PER_HOST")
        #expect(Configuration.environmentName(for: "socket.path") == "REQD_SOCKET_PATH")
        #expect(Configuration.environmentName(for: "jobs.retention") == "REQD_JOBS_RETENTION")
        for setting in Configuration.settings {
            let changed = try #require(Self.changed(setting), "no other value found for \(setting.key)")
            let name = Configuration.environmentName(for: setting.key)
            let loaded = try ConfigurationLoader(file: nil, environment: [name: Self.text(of: changed.value)]).load()
            #expect(loaded == changed.configuration, "\(name)")
        }
    }

    @Test("configuration errors carry a configuration code")
    func configurationCodes() {
        let unknown = TemporaryDirectory()
        let malformed = TemporaryDirectory()
        let cases: [(file: String?, overrides: [(key: String, value: String)], code: DaemonError.Code)] = [
            (nil, [("jobs.max_actve", "5")], .unknownSetting),
            (nil, [("jobs.max_active", "-1")], .invalidSetting),
            (nil, [("countdown.min_tick", "1m")], .invalidSetting),
            (write("[jobs]\nmax_actve = 5\n", in: unknown), [], .unknownSetting),
            (write("[daemon]\nthis is not toml\n", in: malformed), [], .malformedConfiguration),
            (unknown.path + "/missing.toml", [], .configurationUnreadable),
        ]
        for (file, overrides, code) in cases {
            #expect {
                _ = try ConfigurationLoader(file: file, environment: [:], overrides: overrides).load()
            } throws: { error in
                (error as? DaemonError)?.code == code
            }
        }
    }

    @Test("target tables load from the file and from --set, and a reload takes them all, http.max_connections_per_host as the default concurrency")
    func targetTables() throws {
        let directory = TemporaryDirectory()
        let file = write(
            """
            [http]
            max_connections_per_host = 16
            [targets.default]
            rate = "600/m"
            [targets."api.example.com:8443"]
            rate = "20/s"
            burst = 5
            [targets."*.example.org"]
            concurrency = 4
            [targets.localhost]
            burst = 2
            """, in: directory)
        let loaded = try ConfigurationLoader(file: file, environment: [:], overrides: [("targets.\"*.example.org\".rate", "1/s")]).load()
        let rules = loaded.scheduler.targets
        #expect(rules.limits(for: "api.example.com:8443") == .init(rate: TargetRate("20/s"), burst: 5, concurrency: 16, table: "api.example.com:8443"))
        #expect(rules.limits(for: "a.example.org:443") == .init(rate: TargetRate("1/s"), burst: 1, concurrency: 4, table: "*.example.org"))
        #expect(rules.limits(for: "localhost:80").burst == 2)
        #expect(rules.limits(for: "elsewhere:80").rate == TargetRate("600/m"))
        let (running, restart) = Configuration().reloaded(with: loaded)
        #expect(running.scheduler.targets.tables == rules.tables && running.scheduler.targets.defaults == rules.defaults)
        #expect(running.scheduler.targets.defaultConcurrency == 16, "the reloaded http.max_connections_per_host")
        #expect(restart.isEmpty)
        #expect(throws: DaemonError.self) {
            _ = try ConfigurationLoader(file: nil, environment: [:], overrides: [("targets.api.example.com.rate", "1/s")]).load()
        }
    }

    @Test("a file that spells one target twice is refused, naming both tables; one table's keys across lines, and --set in another spelling, are not")
    func oneTargetTwoSpellings() throws {
        let directory = TemporaryDirectory()
        for (first, second) in [("[::1]:8080", "[0:0::1]:8080"), ("api.example.com", "API.Example.com"), ("db.internal:5432", "db.internal:05432")] {
            let file = write(
                """
                [targets."\(first)"]
                rate = "20/s"
                burst = 5
                [targets."other.example"]
                burst = 2
                [targets."\(second)"]
                rate = "1/s"
                """, in: directory)
            let error = try #require(throws: DaemonError.self) {
                _ = try ConfigurationLoader(file: file, environment: [:], overrides: []).load()
            }
            #expect(error.code == .invalidSetting && error.key == "targets.\"\(second)\".rate")
            #expect(error.message.contains(":7:") && error.message.contains("[targets.\"\(second)\"] and [targets.\"\(first)\"] (its first key on line 2) are one target"), "\(error.message)")
        }
        let file = write(
            """
            [targets."[::1]:8080"]
            rate = "20/s"
            [targets."other.example"]
            burst = 2
            """, in: directory)
        let loaded = try ConfigurationLoader(file: file, environment: [:], overrides: [("targets.\"[0:0::1]:8080\".burst", "3")]).load()
        #expect(loaded.scheduler.targets.limits(for: "[::1]:8080") == .init(rate: TargetRate("20/s"), burst: 3, concurrency: 64, table: "[::1]:8080"))
    }

    @Test("breaker keys: on with breaker_failure_ratio, the others defaulted or set; bad values are refused with the key named")
    func breakerKeys() throws {
        let directory = TemporaryDirectory()
        let file = write(
            """
            [targets."api.example.com"]
            breaker_failure_ratio = 0.7
            breaker_min_requests = 10
            breaker_window = "30s"
            breaker_open_for = "1m"
            [targets."other.example.com"]
            breaker_failure_ratio = 1
            """, in: directory)
        let rules = try ConfigurationLoader(file: file, environment: [:], overrides: []).load().scheduler.targets
        #expect(
            rules.limits(for: "api.example.com:443").breaker
                == BreakerSettings(failureRatio: 0.7, minRequests: 10, windowNanos: 30_000_000_000, openForNanos: 60_000_000_000))
        #expect(rules.limits(for: "other.example.com:443").breaker == BreakerSettings(failureRatio: 1))
        #expect(rules.limits(for: "elsewhere:443").breaker == nil, "no breaker unless configured")
        let optOut = try ConfigurationLoader(
            file: nil, environment: [:],
            overrides: [
                ("targets.default.breaker_failure_ratio", "0.5"), ("targets.\"quiet.example\".breaker_failure_ratio", "0"),
                ("http.ca_file", "/etc/ssl/certs/ca-certificates.crt"), ("targets.\"quiet.example\".ca_file", ""),
            ]
        ).load().scheduler.targets
        #expect(optOut.limits(for: "quiet.example:443").breaker == nil && optOut.limits(for: "quiet.example:443").tls == nil, "a table drops what the defaults give")
        #expect(optOut.limits(for: "loud.example:443").breaker != nil && optOut.limits(for: "loud.example:443").tls?.caPEM?.isEmpty == false)
        for (key, value, says) in [
            ("breaker_failure_ratio", "-0.1", "from 0 (no breaker) to 1"), ("breaker_failure_ratio", "1.5", "from 0 (no breaker) to 1"),
            ("breaker_min_requests", "0", "from 1"), ("breaker_window", "500ms", "from 1s"), ("breaker_open_for", "0s", "positive"),
        ] {
            let full = "targets.\"api.example.com\".\(key)"
            let error = try #require(throws: DaemonError.self) {
                _ = try ConfigurationLoader(file: nil, environment: [:], overrides: [(full, value)]).load()
            }
            #expect(error.description.contains(key) && error.description.contains(says), "\(error)")
        }
    }

    @Test("a file written for an earlier version, with request.resume_spread, still loads: the key is ignored with a note")
    func retiredKey() throws {
        let directory = TemporaryDirectory()
        let file = write("[request]\nresume_spread = \"1s\"\ncatchup_rate = 7\n", in: directory)
        let loaded = try ConfigurationLoader(file: file, environment: [:], overrides: [("request.resume_spread", "2s")]).load()
        #expect(loaded.scheduler.catchupRate == 7)
        #expect(loaded.notes.count == 1)
        #expect(loaded.notes.first?.contains("request.catchup_rate") == true)
    }

    @Test("file, then environment, then flags, each overriding the one before")
    func precedence() throws {
        let directory = TemporaryDirectory()
        let file = write(
            """
            # comment
            [daemon]
            log_level = "debug"   # trailing comment
            [jobs]
            retention = "2h"
            max_retained = 10
            [socket]
            mode = "0600"
            [http]
            connect_timeout = "2s"
            max_response_bytes = 4096
            max_redirects = 0
            [poll]
            min_every = "1s"
            max_failures = 9
            [request]
            max_attempts = 3
            backoff_min = "250ms"
            dedupe_window = "0s"
            """, in: directory)
        let configuration = try ConfigurationLoader(
            file: file, environment: ["REQD_JOBS_RETENTION": "30m", "REQD_DAEMON_LOG_LEVEL": "error"],
            overrides: [("daemon.log_level", "warning")]
        ).load()
        #expect(configuration.logLevel == .warning)
        #expect(configuration.scheduler.retentionNanos == 30 * 60 * 1_000_000_000)
        #expect(configuration.scheduler.maxRetainedJobs == 10)
        #expect(configuration.socketMode == 0o600)
        #expect(configuration.http.connectTimeoutNanos == 2_000_000_000)
        #expect(configuration.http.maxResponseBytes == 4096)
        #expect(configuration.http.maxRedirects == 0)
        #expect(configuration.scheduler.minPollEveryNanos == 1_000_000_000)
        #expect(configuration.scheduler.defaultMaxFailures == 9)
        #expect(configuration.scheduler.defaultMaxAttempts == 3)
        #expect(configuration.scheduler.defaultBackoffMinNanos == 250_000_000)
        #expect(configuration.scheduler.dedupeWindowNanos == 0)
    }

    @Test("an invalid setting is an error that names the key", arguments: [
        ("[jobs]\nretention = \"soon\"\n", "jobs.retention"),
        ("[socket]\nmode = \"rw\"\n", "socket.mode"),
        ("[daemon]\nlog_level = \"loud\"\n", "daemon.log_level"),
        ("[jobs]\nmax_active = -1\n", "jobs.max_active"),
        ("[jobs]\nmax_actve = 5\n", "jobs.max_actve"),
        ("[countdown]\nmin_tick = \"1m\"\ndefault_tick = \"1s\"\n", "countdown.default_tick"),
        ("[socket]\npath = \"relative.sock\"\n", "socket.path"),
        ("[http]\nrequest_timeout = \"0s\"\n", "http.request_timeout"),
        ("[http]\nmax_response_bytes = 10\n", "http.max_response_bytes"),
        ("[poll]\nmax_failures = 0\n", "poll.max_failures"),
        ("[request]\nmax_attempts = 0\n", "request.max_attempts"),
        ("[request]\nbackoff_min = \"10m\"\nbackoff_max = \"1m\"\n", "request.backoff_max"),
        ("[http]\ndeny = [\"10.0.0.0/8\", \"intranet\"]\n", "http.deny"),
        ("[http]\nallow = [\"10.0.0.0/99\"]\n", "http.allow"),
        ("[http]\ndeny = [\"10.0.0.0/8\",\n  \"fe80::/10\"\n", "http.deny"),
    ])
    func invalidSettingNamesKey(text: String, key: String) {
        let directory = TemporaryDirectory()
        let file = write(text, in: directory)
        #expect {
            _ = try ConfigurationLoader(file: file, environment: [:]).load()
        } throws: { error in
            guard let error = error as? DaemonError else { return false }
            return error.key == key && error.message.contains(key)
        }
    }

    @Test("arrays of strings, on one line or several with comments, set the target policy; --set takes them comma-separated")
    func stringArrays() throws {
        let directory = TemporaryDirectory()
        let file = write(
            "[http]\nallow = [\"*.corp.example\"]\ndeny = [\"169.254.0.0/16\", # metadata\n  \"fe80::/10\",\n\n  \"10.0.0.0/8\",\n]\n",
            in: directory)
        let loaded = try ConfigurationLoader(file: file, environment: [:]).load()
        #expect(loaded.scheduler.targetPolicy.allow == ["*.corp.example"])
        #expect(loaded.scheduler.targetPolicy.deny == ["169.254.0.0/16", "fe80::/10", "10.0.0.0/8"])
        #expect(loaded.scheduler.targetPolicy.isActive)
        var configuration = Configuration()
        try configuration.set("http.deny", .string("127.0.0.0/8, ::1"))
        #expect(configuration.scheduler.targetPolicy.deny == ["127.0.0.0/8", "::1"])
    }

    @Test("a malformed line is reported with its line number")
    func malformedLine() {
        let directory = TemporaryDirectory()
        let file = write("[daemon]\nthis is not toml\n", in: directory)
        #expect {
            _ = try ConfigurationLoader(file: file, environment: [:]).load()
        } throws: { error in
            (error as? DaemonError)?.message.contains("reqd.toml:2") == true
        }
    }

    @Test("default places follow systemd's directories, then XDG, then /tmp and ~/.local/state")
    func defaultPaths() {
        #expect(DaemonPaths.socketPath(configured: nil, environment: ["RUNTIME_DIRECTORY": "/run/reqd"]) == "/run/reqd/reqd.sock")
        #expect(DaemonPaths.socketPath(configured: nil, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"]) == "/run/user/1000/reqd/reqd.sock")
        #expect(DaemonPaths.socketPath(configured: nil, environment: [:]) == "/tmp/reqd-\(getuid())/reqd.sock")
        #expect(DaemonPaths.stateDirectory(configured: nil, environment: ["STATE_DIRECTORY": "/var/lib/reqd"]) == "/var/lib/reqd")
        #expect(DaemonPaths.stateDirectory(configured: nil, environment: ["XDG_STATE_HOME": "/h/.st"]) == "/h/.st/reqd")
        #expect(DaemonPaths.stateDirectory(configured: nil, environment: ["HOME": "/home/a"]) == "/home/a/.local/state/reqd")
    }

    @Test("metadata keys become journal fields")
    func journalFieldNames() {
        #expect(DaemonLogHandler.journalFieldName("job.id") == "JOB_ID")
        #expect(DaemonLogHandler.journalFieldName("job.kind") == "JOB_KIND")
        #expect(DaemonLogHandler.journalFieldName("scope") == "SCOPE")
    }

    /// Each key of a file such as `config/reqd.toml`, in order, with the comment block above it; keys that
    /// follow one another share the block above the first.
    private static func keysWithComments(inTOML text: String) -> [(key: String, comment: String)] {
        var result: [(key: String, comment: String)] = []
        var table = ""
        var comment: [String] = []
        var inComment = false
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") {
                if !inComment { comment = [] }
                inComment = true
                comment.append(String(line.dropFirst()))
                continue
            }
            inComment = false
            if line.isEmpty {
                comment = []
            } else if line.hasPrefix("[") {
                table = String(line.dropFirst().dropLast())
                comment = []
            } else if let equals = line.firstIndex(of: "=") {
                let key = line[..<equals].trimmingCharacters(in: .whitespaces)
                result.append((table + "." + key, comment.joined(separator: " ")))
            }
        }
        return result
    }

    /// A value of `setting` other than its default, and the defaults with that value set: the first
    /// candidate `set` accepts that changes the configuration and leaves it valid.
    static func changed(_ setting: Setting) -> (value: TOMLSubset.Value, configuration: Configuration)? {
        let candidates: [TOMLSubset.Value]
        switch setting.documentedValue(in: Configuration()) {
        case .integer(let number):
            candidates = [.integer(number + 1), .integer(number - 1)]
        case .boolean(let flag):
            candidates = [.boolean(!flag)]
        case .array:
            candidates = [.array([.string("10.0.0.0/8"), .string("fe80::/10")])]
        default:
            // A path a file setting can read (http.ca_file): the system's CA bundle (ca-certificates).
            candidates = ["/srv/reqd", "/etc/ssl/certs/ca-certificates.crt", "0600", "debug", "stderr", "5ms", "200us", "7s", "postgres", "postgres:///reqd?host=/run/postgresql"].map { .string($0) }
        }
        for candidate in candidates {
            var configuration = Configuration()
            guard (try? configuration.set(setting.key, candidate)) != nil, (try? configuration.readTLSFiles()) != nil,
                (try? configuration.validate()) != nil,
                configuration != Configuration()
            else { continue }
            return (candidate, configuration)
        }
        return nil
    }

    /// A value as the environment or `--set` gives it.
    static func text(of value: TOMLSubset.Value) -> String {
        switch value {
        case .string(let text): text
        case .integer(let number): "\(number)"
        case .float(let number): "\(number)"
        case .boolean(let flag): "\(flag)"
        case .array(let elements): elements.map(text(of:)).joined(separator: ", ")
        }
    }
}
