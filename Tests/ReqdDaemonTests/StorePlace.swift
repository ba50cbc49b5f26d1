import Foundation
import Logging
import ReqdCore
import ReqdTestSupport
import Testing
@testable import ReqdDaemon

/// Where one test's store lives: a temporary directory, or a cluster of its own on the test
/// process's PostgreSQL server. Each `open` reaches the same rows.
final class StorePlace {
    let kind: StoreKind
    let directory = TemporaryDirectory()
    let cluster = TestPostgres.clusterName()

    init(_ kind: StoreKind) {
        self.kind = kind
    }

    /// The PostgreSQL address of the test server.
    static func postgresAddress() throws -> PostgresAddress {
        try PostgresAddress(parsing: try TestPostgres.shared().url)
    }

    /// Opens the store at this place.
    func open(onCommit: @escaping @Sendable ([CommitToken], String?) -> Void) throws -> JobStore {
        switch kind {
        case .sqlite:
            return try JobStore(directory: directory.path, onCommit: onCommit)
        case .postgres:
            let backend = try PostgresStoreBackend(
                address: try Self.postgresAddress(), password: nil, cluster: cluster,
                leaseNanos: 15_000_000_000, logger: Logger(label: "reqd-test"))
            return JobStore(backend: backend, onCommit: onCommit)
        }
    }

    /// How many rows `table` holds, read past the store.
    func rows(in table: String) throws -> Int64 {
        switch kind {
        case .sqlite:
            return try SQLiteDatabase(path: directory.path + "/reqd.sqlite3").scalar("SELECT count(*) FROM \(table)")
        case .postgres:
            let text = try TestPostgres.shared().psql("SELECT count(*) FROM reqd_\(cluster).\(table)")
            return Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
    }
}
