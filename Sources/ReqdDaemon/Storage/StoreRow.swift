/// One result row of a store's read, by column index, whichever database it came from.
protocol StoreRow {
    /// The column's integer; nil when it is NULL.
    func integer(_ column: Int32) -> Int64?
    /// The column's floating-point number; nil when it is NULL.
    func real(_ column: Int32) -> Double?
    /// The column's text; nil when it is NULL.
    func text(_ column: Int32) -> String?
}
