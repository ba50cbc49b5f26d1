import Foundation
import Glibc
import Synchronization

/// A throwaway PostgreSQL server for tests: `initdb` in a temporary directory, listening only on a
/// Unix socket in it, as the `postgres` user when the tests run as root (initdb refuses root).
///
/// One server serves a whole test process; each test takes a cluster name of its own, so tests
/// never see each other's rows. The server is stopped by its PID when the process exits, and a
/// server left by a test process that died is stopped by the next one.
public final class TestPostgres: Sendable {
    /// The directory holding the data, the socket and the server's log.
    public let directory: String
    /// The socket's port number (its file is `directory/.s.PGSQL.PORT`; no TCP port is opened).
    public let port = 5432

    private static let started = Mutex<Result<TestPostgres, TestPostgresError>?>(nil)
    private static let clusters = Atomic<Int>(0)
    private static let outputs = Atomic<Int>(0)

    private init(directory: String) {
        self.directory = directory
    }

    /// The process's server, started on first use; the error says what is missing.
    public static func shared() throws(TestPostgresError) -> TestPostgres {
        let result = started.withLock { result in
            if let result { return result }
            let new = Result { () throws(TestPostgresError) in try start() }
            result = new
            if case .success = new { atexit { TestPostgres.stopShared() } }
            return new
        }
        return try result.get()
    }

    /// A libpq URL of the server's `postgres` database as the `postgres` role, over the socket.
    public var url: String { "postgres:///postgres?host=\(directory)&port=\(port)&user=postgres&sslmode=disable" }

    /// A cluster name no other test of this process uses.
    public static func clusterName(_ prefix: String = "t") -> String {
        "\(prefix)\(getpid())_\(clusters.add(1, ordering: .relaxed).newValue)"
    }

    /// The server's PID, from `postmaster.pid`; nil when no postgres runs on this data directory
    /// under that PID (a stale file's PID may belong to another process by now).
    public var pid: pid_t? {
        guard let text = try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8),
            let first = text.split(separator: "\n").first, let pid = pid_t(first),
            let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
            String(decoding: command, as: UTF8.self).contains(directory + "/data")
        else { return nil }
        return pid
    }

    /// Starts a server of the caller's own, for a test that stops and starts it; the caller
    /// stops it with `remove()`.
    public static func startPrivate() throws(TestPostgresError) -> TestPostgres {
        try start()
    }

    /// Stops the server and removes its directory.
    public func remove() {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Stops the server by its PID (a fast shutdown) and waits for it to be gone.
    public func stop() {
        guard let pid else { return }
        kill(pid, SIGINT)
        for _ in 0..<400 where kill(pid, 0) == 0 { usleep(25_000) }
    }

    /// Starts the stopped server again on the same data and socket.
    public func restart() throws(TestPostgresError) {
        stop()
        try Self.runPostgres(directory: directory, ["pg_ctl", "-D", directory + "/data", "-l", directory + "/server.log", "-w", "start"])
    }

    /// Runs `psql` on the server with `sql`, returning its unaligned output.
    public func psql(_ sql: String) throws(TestPostgresError) -> String {
        try Self.runPostgres(
            directory: directory,
            ["psql", "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", directory, "-p", "\(port)", "-U", "postgres", "-d", "postgres", "-c", sql])
    }

    private static func stopShared() {
        guard case .success(let server)? = started.withLock({ $0 }) else { return }
        server.remove()
    }

    private static func start() throws(TestPostgresError) -> TestPostgres {
        sweepAbandoned()
        var template = Array("/tmp/reqd-pg-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        try? "\(getpid())".write(toFile: directory + "/owner.pid", atomically: true, encoding: .utf8)
        chmod(directory, 0o755)
        if geteuid() == 0 {
            guard let user = getpwnam("postgres") else {
                throw TestPostgresError("no 'postgres' user to run the test server as; install PostgreSQL (scripts/setup does)")
            }
            chown(directory, user.pointee.pw_uid, user.pointee.pw_gid)
        }
        let server = TestPostgres(directory: directory)
        try runPostgres(directory: directory, ["initdb", "-D", directory + "/data", "-A", "trust", "-U", "postgres", "--no-sync"])
        let settings = "listen_addresses=''\nunix_socket_directories='\(directory)'\nport=\(server.port)\nfsync=off\nmax_connections=200\n"
        try runPostgres(directory: directory, ["sh", "-c", "printf '%s' \"$0\" >> \(directory)/data/postgresql.conf", settings])
        try runPostgres(directory: directory, ["pg_ctl", "-D", directory + "/data", "-l", directory + "/server.log", "-w", "start"])
        return server
    }

    /// Stops and removes servers whose test process has gone.
    private static func sweepAbandoned() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/tmp") else { return }
        for name in names where name.hasPrefix("reqd-pg-") {
            let directory = "/tmp/" + name
            guard let owner = (try? String(contentsOfFile: directory + "/owner.pid", encoding: .utf8)).flatMap({ pid_t($0) }),
                kill(owner, 0) != 0, errno == ESRCH
            else { continue }
            TestPostgres(directory: directory).stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Runs one of PostgreSQL's programs (or `sh`), as `postgres` when this process is root, and
    /// returns its output; a failure carries the output.
    @discardableResult
    private static func runPostgres(directory: String, _ arguments: [String]) throws(TestPostgresError) -> String {
        guard let binaries = binaryDirectory() else {
            throw TestPostgresError("PostgreSQL's programs are not installed; `apt-get install postgresql` (scripts/setup does)")
        }
        let program = arguments[0] == "sh" ? "/bin/sh" : binaries + "/" + arguments[0]
        // bash closes every descriptor above 2 before it runs the program: the server `pg_ctl start`
        // leaves running must hold none of this process's (Foundation's Process would wait for it).
        let closing = #"cd "$0" || exit 1; for f in /proc/$$/fd/*; do n=${f##*/}; ((n > 2)) && eval "exec $n>&-"; done 2>/dev/null; exec "$@""#
        let argv = ["/bin/bash", "-c", closing, directory] + (geteuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : [])
            + [program] + arguments.dropFirst()
        let outputPath = directory + "/command-\(outputs.add(1, ordering: .relaxed).newValue).out"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o666)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var pid: pid_t = 0
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else { throw TestPostgresError("cannot run \(argv[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        unlink(outputPath)
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        guard exitStatus == 0 else {
            throw TestPostgresError("\(arguments[0]) failed (\(exitStatus)): \(text.suffix(2_000))")
        }
        return text
    }

    /// Debian's `/usr/lib/postgresql/N/bin`, the newest N.
    private static func binaryDirectory() -> String? {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.compactMap(Int.init).max().map { "/usr/lib/postgresql/\($0)/bin" }
    }
}
