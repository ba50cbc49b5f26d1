import Foundation

/// Which database keeps the durable jobs (`storage.*`, `cluster.name`).
public struct StorageSettings: Sendable, Equatable {
    /// The database behind the job store.
    public enum Backend: String, Sendable, CaseIterable {
        /// `reqd.sqlite3` in the state directory: the embedded default.
        case sqlite
        /// A PostgreSQL database, `storage.postgres_url`.
        case postgres
    }

    public var backend = Backend.sqlite
    /// Where the PostgreSQL store is; required when `backend` is `postgres`.
    public var postgresAddress: PostgresAddress?
    /// A file holding the PostgreSQL password, read at start; `$PGPASSWORD` when nil.
    public var postgresPasswordFile: String?
    /// Keeps clusters apart in one database: each has a schema of its own, `reqd_NAME`.
    public var clusterName = "default"
    /// How long a daemon's lease on its jobs lasts without a renewal.
    public var leaseNanos: Int64 = 15_000_000_000
    /// How far ahead a daemon claims free jobs: those due later stay free until then. Never less
    /// than the lease, so that a renewal comes while a job is still ahead of its due time.
    public var horizonNanos: Int64 = 60_000_000_000
    /// How long, on PostgreSQL, a change that no reply waits for (a job's end, its attempts) waits
    /// to share a commit with other work before it makes one of its own.
    public var commitDelayNanos: Int64 = 2_000_000

    /// The embedded defaults.
    public init() {}

    /// The PostgreSQL password for a URL that holds none: the password file's first line, else
    /// `$PGPASSWORD`, else nil (trust or peer authentication). Not called for a URL with one.
    func postgresPassword() throws(DaemonError) -> String? {
        guard let file = postgresPasswordFile else { return ProcessInfo.processInfo.environment["PGPASSWORD"] }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw DaemonError(.storeOpenFailed, "cannot read storage.postgres_password_file \(file)")
        }
        return text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
    }

    /// Whether `name` can name a cluster: a lowercase letter, then up to 39 lowercase letters,
    /// digits or `_`, so that `reqd_NAME` is a plain SQL identifier.
    public static func isValidClusterName(_ name: String) -> Bool {
        guard let first = name.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first), name.utf8.count <= 40 else {
            return false
        }
        return name.utf8.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_")
        }
    }
}
