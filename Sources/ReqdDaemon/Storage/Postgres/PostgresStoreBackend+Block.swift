extension PostgresStoreBackend {
    /// The fewest repeats of the same statements that `block` writes as one loop.
    static let shortestLoop = 3

    /// The most statements one pass of a loop runs: a job's end and its poll counters, an
    /// attempt's insert and the delete of the oldest.
    static let longestPass = 4

    /// The statements as one anonymous PL/pgSQL block after `leaseCheck`, their `?N` replaced by
    /// literals; nil when a text value holds the block's dollar quote.
    ///
    /// A run where the same one to `longestPass` statements repeat at least `shortestLoop` times
    /// (the expiries of one commit, its inserts, the attempts of its jobs) is written once, in a
    /// loop over arrays of its values, so that the server parses it once per commit rather than
    /// once per job, and plans it a few times (PostgreSQL plans a statement anew for its first
    /// five runs): on this machine a commit of 1,000 job ends took 38 ms of the server's time
    /// that way and 136 ms as literals. The loop runs the statements in the order the commit has
    /// them. A placeholder with no value makes the run go statement by statement.
    static func block(_ statements: [StoreStatement]) -> String? {
        var body = ""
        body.reserveCapacity(statements.reduce(64) { $0 + $1.sql.utf8.count + $1.values.count * 24 })
        var looped = false
        var start = statements.startIndex
        while start < statements.endIndex {
            let (pass, passes) = repeats(in: statements[start...])
            let run = statements[start..<start + pass * passes]
            start = run.endIndex
            if passes >= shortestLoop, let loop = loop(run, pass: pass) {
                body += loop
                looped = true
                continue
            }
            for statement in run {
                let written = StoreStatement.replacingPlaceholders(in: statement.sql) { literal(statement.values[$0 - 1]) }
                guard let written else { return nil }
                body += performed(written) + ";\n"
            }
        }
        return "DO $reqd$ \(looped ? "DECLARE reqd_row record; " : "")BEGIN\n" + leaseCheck + "\n" + body + "END $reqd$"
    }

    /// The pass (1 to `longestPass` statements) whose SQL repeats the most statements from the
    /// start of `statements`, and how many times it repeats.
    private static func repeats(in statements: ArraySlice<StoreStatement>) -> (pass: Int, passes: Int) {
        var best = (pass: 1, passes: 1)
        for pass in 1...longestPass where pass <= statements.count {
            let first = statements.startIndex
            var end = first + pass
            while end < statements.endIndex, statements[end].sql == statements[first + (end - first) % pass].sql { end += 1 }
            let passes = (end - first) / pass
            if passes >= shortestLoop, passes * pass > best.pass * best.passes { best = (pass, passes) }
        }
        return best
    }

    /// Passes of `pass` statements run once per element of arrays that hold their values,
    /// statement by statement and position by position (`v2_3`: the second statement's `?3`); a
    /// position that is NULL in every pass is written as `NULL`. Nil when a position holds values
    /// of two kinds (the run is then written statement by statement) or a text holds the block's
    /// quote.
    private static func loop(_ run: ArraySlice<StoreStatement>, pass: Int) -> String? {
        var arrays: [String] = []
        var names: [String] = []
        var bodies = ""
        for member in 0..<pass {
            let passes = stride(from: run.startIndex + member, to: run.endIndex, by: pass).map { run[$0] }
            let first = passes[0]
            var typed: Set<Int> = []
            for position in first.values.indices {
                var type: String?
                var elements: [String] = []
                elements.reserveCapacity(passes.count)
                for statement in passes {
                    guard statement.values.count == first.values.count else { return nil }
                    let value = statement.values[position]
                    let kind: String? =
                        switch value {
                        case .integer: "bigint"
                        case .real: "float8"
                        case .text: "text"
                        case .null: nil
                        }
                    if let kind {
                        if type == nil { type = kind } else if type != kind { return nil }
                    }
                    guard let element = literal(value) else { return nil }
                    elements.append(element)
                }
                guard let type else { continue }
                typed.insert(position + 1)
                arrays.append("ARRAY[\(elements.joined(separator: ","))]::\(type)[]")
                names.append("v\(member + 1)_\(position + 1)")
            }
            let body = StoreStatement.replacingPlaceholders(in: first.sql) { number -> String? in
                guard number <= first.values.count else { return nil }
                return typed.contains(number) ? "reqd_row.v\(member + 1)_\(number)" : "NULL"
            }
            guard let body else { return nil }
            bodies += performed(body) + ";\n"
        }
        guard !arrays.isEmpty else { return nil }
        return "FOR reqd_row IN SELECT * FROM unnest(\(arrays.joined(separator: ", "))) AS t(\(names.joined(separator: ", "))) LOOP\n"
            + bodies + "END LOOP;\n"
    }

    /// `value` as a SQL literal; nil for a text that holds the block's dollar quote.
    private static func literal(_ value: StoreValue) -> String? {
        switch value {
        case .integer(let value): return String(value)
        case .real(let value):
            return value.isFinite ? "\(value)::float8" : "'\(value.isNaN ? "NaN" : value < 0 ? "-Infinity" : "Infinity")'::float8"
        case .null: return "NULL"
        case .text(let value):
            guard !value.contains("$reqd$") else { return nil }
            let storable = PostgresSession.storable(value)
            return "'" + (storable.contains("'") ? storable.replacingOccurrences(of: "'", with: "''") : storable) + "'"
        }
    }

    /// A statement as PL/pgSQL runs it: a SELECT in a transaction is there for what it does (a
    /// notice), so it runs with PERFORM.
    private static func performed(_ statement: String) -> String {
        statement.hasPrefix("SELECT ") ? "PERFORM " + statement.dropFirst(7) : statement
    }
}
