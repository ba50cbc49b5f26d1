/// One SQL statement of a store transaction with its parameters, written with `?N` placeholders
/// (a backend whose database numbers them otherwise rewrites them).
struct StoreStatement: Sendable, Equatable {
    let sql: String
    let values: [StoreValue]

    init(_ sql: String, _ values: [StoreValue]) {
        self.sql = sql
        self.values = values
    }
}
