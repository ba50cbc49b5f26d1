import PostgresNIO

/// A PostgreSQL result row read as a `StoreRow`; a cell that does not decode reads as NULL.
struct PostgresStoreRow: StoreRow {
    let row: PostgresRandomAccessRow

    func integer(_ column: Int32) -> Int64? {
        try? row[Int(column)].decode(Int64?.self)
    }

    func real(_ column: Int32) -> Double? {
        try? row[Int(column)].decode(Double?.self)
    }

    func text(_ column: Int32) -> String? {
        try? row[Int(column)].decode(String?.self)
    }
}
