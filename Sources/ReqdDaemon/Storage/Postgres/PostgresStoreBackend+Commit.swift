extension PostgresStoreBackend {
    /// A statement prepared on the store's connection: its name, and how many values it takes.
    struct Prepared: Equatable {
        /// The name `PREPARE` gave it.
        let name: String
        /// The highest placeholder its SQL has.
        let parameters: Int
    }

    /// How one commit's statements reach the server: as one statement either way, so in one
    /// round trip and one transaction, which the statement commits itself (`COMMIT` in the
    /// procedure or the block) before the server answers it. The implicit transaction of a
    /// statement commits only after the answer, so a server stopped between the two would lose
    /// a commit the daemon had taken as done (schema version 7).
    enum Commit: Equatable {
        /// A `script` for `CALL commit_statements($1)`.
        case script(String)
        /// An anonymous PL/pgSQL block that checks the lease and runs the statements, with runs
        /// of `shortestLoop` or more as loops (`block`).
        case block(String)
    }

    /// The fewest repeats of the same statements that a commit writes as one loop, in a block.
    ///
    /// A loop runs one plan over arrays of values, where a script pays for each statement's
    /// `EXECUTE`, but the server compiles the block anew for each commit. By hand on this
    /// machine, commits of job ends cost the server about the same per end either way at 100
    /// ends a commit (26 µs as a script, 29 µs as a loop) and less as a loop at 1,000 (26 µs
    /// against 28 µs). In the daemon, 50 clients' submits went 10–60% faster with loops from
    /// 100 repeats on than with loops from 10, 16 or 30 on (a few runs each), and 100,000
    /// countdowns were registered in 7 s with loops from 100 on and in 8–9 s with no loops.
    static let shortestLoop = 100

    /// The most statements one pass of a loop runs: a job's end and its poll counters, an
    /// attempt's insert and the delete of the oldest.
    static let longestPass = 4

    /// The statements as one statement for the server: a block when some run of them repeats
    /// `shortestLoop` times or more and the block can quote every value, a script otherwise.
    /// Nil when a statement names a value it was not given.
    static func commit(_ statements: [StoreStatement], prepared: [String: Prepared]) -> Commit? {
        if let block = block(statements) { return .block(block) }
        return script(statements, prepared: prepared).map(Commit.script)
    }

    /// The statements as one anonymous PL/pgSQL block after the lease check, each run of the
    /// same one to `longestPass` statements repeated at least `shortestLoop` times written once,
    /// in a loop over arrays of its values, and the rest written out; nil when no run is that
    /// long, or a text value holds the block's dollar quote, or a statement names a value it
    /// was not given.
    ///
    /// The server parses a loop's statements once per commit and plans them a few times
    /// (PostgreSQL plans a statement anew for its first five runs); the loop runs them in the
    /// order the commit has them.
    static func block(_ statements: [StoreStatement]) -> String? {
        var runs: [(run: ArraySlice<StoreStatement>, pass: Int, passes: Int)] = []
        var start = statements.startIndex
        while start < statements.endIndex {
            let (pass, passes) = repeats(in: statements[start...])
            runs.append((statements[start..<start + pass * passes], pass, passes))
            start += pass * passes
        }
        guard runs.contains(where: { $0.passes >= shortestLoop }) else { return nil }
        var body = ""
        var looped = false
        for (run, pass, passes) in runs {
            if passes >= shortestLoop, let loop = loop(run, pass: pass) {
                body += loop
                looped = true
                continue
            }
            for statement in run {
                guard let written = written(statement, blockLiteral) else { return nil }
                body += performed(written) + ";\n"
            }
        }
        guard looped else { return nil }
        return "DO $reqd$ DECLARE reqd_row record; BEGIN\nPERFORM check_lease();\n" + body + "COMMIT;\nEND $reqd$"
    }

    /// The statements as one script for the schema's `commit_statements(text)`, which checks the
    /// lease, runs it with `EXECUTE` and commits. Nil when a statement names a value it was not given.
    ///
    /// A statement whose SQL is `prepared` is an `EXECUTE` of it, the others are written out;
    /// either way the values are SQL literals. A prepared statement is parsed once per
    /// connection and planned a few times, so a commit pays for neither per job. On this
    /// machine a commit of a job's insert, its end and its attempt took 0.42 ms that way, 0.72
    /// ms written out, and 0.91 ms as a block, which the server compiles anew for each commit.
    static func script(_ statements: [StoreStatement], prepared: [String: Prepared]) -> String? {
        var script = ""
        script.reserveCapacity(statements.reduce(0) { $0 + 16 + $1.values.count * 24 })
        var previous: (sql: String, prepared: Prepared?)?
        for statement in statements {
            if previous?.sql != statement.sql { previous = (statement.sql, prepared[statement.sql]) }
            if let prepared = previous?.prepared {
                guard statement.values.count >= prepared.parameters else { return nil }
                script += "EXECUTE " + prepared.name
                for (index, value) in statement.values.prefix(prepared.parameters).enumerated() {
                    script += index == 0 ? "(" : ", "
                    script += literal(value)
                }
                script += prepared.parameters > 0 ? ");\n" : ";\n"
                continue
            }
            guard let written = written(statement, literal) else { return nil }
            script += written + ";\n"
        }
        return script
    }

    /// The pass (1 to `longestPass` statements) whose SQL repeats the most statements from the
    /// start of `statements`, and how many times it repeats: (1, 1) when none repeats.
    private static func repeats(in statements: ArraySlice<StoreStatement>) -> (pass: Int, passes: Int) {
        var best = (pass: 1, passes: 1)
        for pass in 1...longestPass where pass <= statements.count {
            let first = statements.startIndex
            var end = first + pass
            while end < statements.endIndex, statements[end].sql == statements[first + (end - first) % pass].sql { end += 1 }
            let passes = (end - first) / pass
            if passes >= 2, passes * pass > best.pass * best.passes { best = (pass, passes) }
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
                    guard let element = blockLiteral(value) else { return nil }
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

    /// A statement as PL/pgSQL runs it: a SELECT in a transaction is there for what it does (a
    /// notice), so it runs with PERFORM.
    private static func performed(_ statement: String) -> String {
        statement.hasPrefix("SELECT ") ? "PERFORM " + statement.dropFirst(7) : statement
    }

    /// The highest placeholder in `sql`: the number of values a statement prepared from it takes.
    static func parameters(in sql: String) -> Int {
        var highest = 0
        _ = StoreStatement.replacingPlaceholders(in: sql) { number -> String? in
            highest = max(highest, number)
            return ""
        }
        return highest
    }

    /// The statement with its values written in by `literal`; nil when it names a value it was
    /// not given, or `literal` gives none.
    private static func written(_ statement: StoreStatement, _ literal: (StoreValue) -> String?) -> String? {
        StoreStatement.replacingPlaceholders(in: statement.sql) { number -> String? in
            number >= 1 && number <= statement.values.count ? literal(statement.values[number - 1]) : nil
        }
    }

    /// `value` as a SQL literal in a block: nil for a text that holds the block's dollar quote.
    private static func blockLiteral(_ value: StoreValue) -> String? {
        if case .text(let text) = value, text.contains("$reqd$") { return nil }
        return literal(value)
    }

    /// `value` as a SQL literal.
    private static func literal(_ value: StoreValue) -> String {
        switch value {
        case .integer(let value): return String(value)
        case .real(let value):
            return value.isFinite ? "\(value)::float8" : "'\(value.isNaN ? "NaN" : value < 0 ? "-Infinity" : "Infinity")'::float8"
        case .null: return "NULL"
        case .text(let value):
            let storable = PostgresSession.storable(value)
            return "'" + (storable.contains("'") ? storable.replacingOccurrences(of: "'", with: "''") : storable) + "'"
        }
    }
}
