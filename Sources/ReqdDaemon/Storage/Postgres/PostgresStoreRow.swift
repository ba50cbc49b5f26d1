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

    func withCell<Result>(_ column: Int32, _ body: (StoreCell) -> Result) -> Result {
        let cell = row[Int(column)]
        guard cell.bytes != nil else { return body(.null) }
        switch cell.dataType {
        case .int2, .int4, .int8: return body(integer(column).map(StoreCell.integer) ?? .null)
        case .float4, .float8: return body(real(column).map(StoreCell.real) ?? .null)
        default:
            guard var text = text(column) else { return body(.null) }
            return text.withUTF8 { body(.text($0)) }
        }
    }
}
