/// A failure the store sees itself, beside postgres-nio's: no answer in time, or none at all.
struct PostgresStoreError: Error {
    let reason: String

    init(_ reason: String) { self.reason = reason }
}
