/// One column of a row as the database holds it.
enum StoreCell {
    case null
    case integer(Int64)
    case real(Double)
    /// Text (or a blob), as its bytes.
    case text(UnsafeBufferPointer<UInt8>)
}
