import Foundation
import Logging
import Testing
@testable import ReqdDaemon

@Suite("Configuration")
struct ConfigurationTests {
    private func write(_ text: String, in directory: TemporaryDirectory) -> String {
        let path = directory.path + "/reqd.toml"
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    @Test("the shipped config/reqd.toml parses and equals the embedded defaults")
    func shippedFileIsDefaults() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let configuration = try ConfigurationLoader(file: root.path + "/config/reqd.toml", environment: [:]).load()
        #expect(configuration == Configuration())
        // Every setting the file documents is also one the environment and --set accept, and back.
        let text = try String(contentsOfFile: root.path + "/config/reqd.toml", encoding: .utf8)
        let documented = Set(try TOMLSubset.parse(text, file: "reqd.toml").keys)
        #expect(documented.subtracting(Configuration.keys).isEmpty, "not accepted by --set: \(documented.subtracting(Configuration.keys))")
        #expect(Set(Configuration.keys).subtracting(documented).isEmpty, "not in the file: \(Set(Configuration.keys).subtracting(documented))")
        #expect(Configuration.reloadableKeys.isSubset(of: Configuration.keys))
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
}
