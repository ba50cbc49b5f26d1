/// One result row of a store's read, by column index, whichever database it came from.
protocol StoreRow {
    /// The column's integer; nil when it is NULL.
    func integer(_ column: Int32) -> Int64?
    /// The column's floating-point number; nil when it is NULL.
    func real(_ column: Int32) -> Double?
    /// The column's text; nil when it is NULL.
    func text(_ column: Int32) -> String?
    /// Calls `body` with the column as the database holds it, a text as its UTF-8 bytes, which
    /// are only valid inside `body`: how a row is copied out without making a `String`.
    func withCell<Result>(_ column: Int32, _ body: (StoreCell) -> Result) -> Result
}

