/// Rows of cells laid out as columns, for `list` and `top`.
enum TextTable {
    /// Each column padded to its widest cell, two spaces between columns, no trailing spaces;
    /// every column but the first right-aligned when asked (for numbers).
    static func lines(_ rows: [[String]], rightAligned: Bool = false) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column > 0 && rightAligned ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
    }
}
