/// The tables and values of a TOML document, with TOML 1.0's rules for defining each only once.
///
/// A table is made in one of three ways, and the way decides what may add to it later: a `[header]`
/// defines it; a header deeper down makes its parents implicitly, and one later header may still
/// define them; a dotted key (`a.b = 1`) makes `a`, which only more dotted keys of the same table
/// may extend, though a deeper header may still pass through it.
struct TOMLTree {
    /// How a table came to be.
    enum Origin {
        case implicit, header, dotted
    }

    /// A table's entries, in the order they were first written.
    struct Table {
        var origin: Origin
        var entries: [String: Node] = [:]
        var order: [String] = []
    }

    /// One entry of a table.
    indirect enum Node {
        case table(Table)
        case value(TOMLSubset.Value, line: Int)
    }

    /// Why a definition was refused; the parser adds the line.
    struct Conflict: Error {
        let problem: String
        let key: String
    }

    private var root = Table(origin: .header)

    /// Defines the table of a `[header]`, making its missing parents implicitly.
    mutating func defineTable(_ path: [String]) throws(Conflict) {
        try Self.define(path[...], in: &root, above: [])
    }

    /// Sets `key` (dotted when it has several parts) in the table at `table`.
    mutating func set(_ value: TOMLSubset.Value, line: Int, key: [String], inTable table: [String]) throws(Conflict) {
        try Self.set(value, line: line, key: key[...], table: table[...], in: &root, above: [])
    }

    /// Calls `body` with every value's full path, depth first, in the order of the file.
    func forEachValue(_ body: (_ path: [String], TOMLSubset.Value, _ line: Int) -> Void) {
        Self.walk(root, above: [], body)
    }

    private static func walk(_ table: Table, above: [String], _ body: ([String], TOMLSubset.Value, Int) -> Void) {
        for name in table.order {
            switch table.entries[name] {
            case .table(let child)?: walk(child, above: above + [name], body)
            case .value(let value, let line)?: body(above + [name], value, line)
            case nil: break
            }
        }
    }

    private static func define(_ path: ArraySlice<String>, in table: inout Table, above: [String]) throws(Conflict) {
        guard let name = path.first else { return }
        let here = above + [name]
        var child: Table
        switch table.entries[name] {
        case nil:
            child = Table(origin: path.count == 1 ? .header : .implicit)
            table.order.append(name)
        case .table(let existing)?:
            child = existing
            if path.count == 1 {
                switch existing.origin {
                case .implicit: child.origin = .header
                case .header: throw conflict(here, "the table [\(written(here))] is defined twice")
                case .dotted:
                    throw conflict(here, "the table [\(written(here))] was made by dotted keys and cannot be given a header")
                }
            }
        case .value?:
            throw conflict(here, "'\(written(here))' is a value, not a table")
        }
        try define(path.dropFirst(), in: &child, above: here)
        table.entries[name] = .table(child)
    }

    private static func set(
        _ value: TOMLSubset.Value, line: Int, key: ArraySlice<String>, table path: ArraySlice<String>,
        in table: inout Table, above: [String]
    ) throws(Conflict) {
        if let name = path.first {
            guard case .table(var child)? = table.entries[name] else { return }
            try set(value, line: line, key: key, table: path.dropFirst(), in: &child, above: above + [name])
            table.entries[name] = .table(child)
            return
        }
        guard let name = key.first else { return }
        let here = above + [name]
        if key.count == 1 {
            guard table.entries[name] == nil else { throw conflict(here, "'\(written(here))' is set twice") }
            table.entries[name] = .value(value, line: line)
            table.order.append(name)
            return
        }
        var child: Table
        switch table.entries[name] {
        case nil:
            child = Table(origin: .dotted)
            table.order.append(name)
        case .table(let existing)? where existing.origin == .dotted:
            child = existing
        case .table?:
            throw conflict(here, "dotted keys cannot add to the table [\(written(here))], which a header makes")
        case .value?:
            throw conflict(here, "'\(written(here))' is a value, not a table")
        }
        try set(value, line: line, key: key.dropFirst(), table: [], in: &child, above: here)
        table.entries[name] = .table(child)
    }

    private static func conflict(_ path: [String], _ problem: String) -> Conflict {
        Conflict(problem: problem, key: written(path))
    }

    private static func written(_ path: [String]) -> String {
        path.map(TOMLParser.written(key:)).joined(separator: ".")
    }
}
