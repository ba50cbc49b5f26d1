/// Rows of a store's read copied out of the database, so that other threads can make records of
/// them while the thread that reads goes on to the next rows.
///
/// Each row's columns are kept as they were read (a text as its UTF-8 bytes in one buffer that
/// every row shares), and read back through `StoreRow` as the database's own row would be.
struct StoreRowBatch: Sendable {
    /// One column of one row.
    private enum Cell: Sendable {
        case null
        case integer(Int64)
        case real(Double)
        /// A text's UTF-8 bytes: where they start in `bytes` and how many there are.
        case text(start: Int, count: Int)
    }

    /// How many columns each row has.
    let width: Int32
    private var cells: [Cell] = []
    private var bytes: [UInt8] = []

    /// An empty batch of rows with `width` columns, with room for `rows` of them.
    init(width: Int32, reserving rows: Int) {
        self.width = width
        cells.reserveCapacity(rows * Int(width))
    }

    /// How many bytes of text the batch holds.
    var textBytes: Int { bytes.count }

    /// How many rows the batch holds.
    var count: Int { cells.count / Int(width) }

    /// Copies the first `width` columns of `row`.
    mutating func append(_ row: some StoreRow) {
        for column in 0..<width {
            let cell = row.withCell(column) { cell -> Cell in
                switch cell {
                case .null: return .null
                case .integer(let value): return .integer(value)
                case .real(let value): return .real(value)
                case .text(let text):
                    let start = bytes.count
                    bytes.append(contentsOf: text)
                    return .text(start: start, count: text.count)
                }
            }
            cells.append(cell)
        }
    }

    /// The row at `index`, from 0.
    subscript(index: Int) -> Row { Row(batch: self, first: index * Int(width)) }

    /// One row of a batch, read as the database's row is for the columns reqd writes, each of
    /// its declared type. A column of another type (written by something else) reads converted
    /// as Swift parses and prints numbers, which is not always as SQLite converts it, where
    /// PostgreSQL's row reads nil.
    struct Row: StoreRow {
        let batch: StoreRowBatch
        let first: Int

        func integer(_ column: Int32) -> Int64? {
            switch batch.cells[first + Int(column)] {
            case .null: nil
            case .integer(let value): value
            case .real(let value): Int64(exactly: value.rounded(.towardZero)) ?? 0
            case .text: text(column).flatMap { Int64($0) } ?? 0
            }
        }

        func real(_ column: Int32) -> Double? {
            switch batch.cells[first + Int(column)] {
            case .null: nil
            case .integer(let value): Double(value)
            case .real(let value): value
            case .text: text(column).flatMap { Double($0) } ?? 0
            }
        }

        func text(_ column: Int32) -> String? {
            switch batch.cells[first + Int(column)] {
            case .null: nil
            case .integer(let value): String(value)
            case .real(let value): String(value)
            case .text(let start, let count):
                batch.bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<start + count]), as: UTF8.self) }
            }
        }

        func withCell<Result>(_ column: Int32, _ body: (StoreCell) -> Result) -> Result {
            switch batch.cells[first + Int(column)] {
            case .null: body(.null)
            case .integer(let value): body(.integer(value))
            case .real(let value): body(.real(value))
            case .text(let start, let count):
                batch.bytes.withUnsafeBufferPointer { body(.text(UnsafeBufferPointer(rebasing: $0[start..<start + count]))) }
            }
        }
    }
}
