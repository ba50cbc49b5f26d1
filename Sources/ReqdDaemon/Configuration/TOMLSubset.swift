import TOMLKit

/// Reads reqd's configuration file: TOML 1.0 as TOMLKit (toml++) reads it, narrowed to the values
/// settings take.
///
/// TOMLKit decides what is TOML: whatever TOML forbids, such as `mode = 0440` (a leading zero) or
/// a key set twice, is refused with the line toml++ names. Inline tables, arrays of tables and
/// dates are valid TOML that no setting takes, and are refused too. TOMLKit gives no line for a
/// value it read, and a refused setting must say where it is, so `TOMLKeyLines` finds the line
/// each key was set on.
enum TOMLSubset {
    /// A value from the file.
    enum Value: Equatable, Sendable {
        case string(String)
        case integer(Int64)
        case float(Double)
        case boolean(Bool)
        case array([Value])
    }

    /// Parses `text` into dotted key → value and the line it was set on.
    ///
    /// A key part that is not a bare key is shown quoted, as TOML writes it, so that
    /// `targets."api.example.com".rate` stays apart from `targets.api.example.com.rate`.
    static func parse(_ text: String, file: String) throws(DaemonError) -> [String: (value: Value, line: Int)] {
        // TOMLKit takes the text, and gives strings back, as C strings: a NUL would silently end
        // the file, or a value, there. TOML forbids the raw byte; the escape is refused as no
        // setting takes it.
        if let nul = text.utf8.firstIndex(of: 0) {
            let line = text.utf8[..<nul].count(where: { $0 == UInt8(ascii: "\n") }) + 1
            throw DaemonError(.malformedConfiguration, "\(file):\(line): the file holds a NUL byte, which TOML forbids; it may be damaged")
        }
        let lines = TOMLKeyLines(text)
        if let line = lines.nulEscapeLine {
            throw DaemonError(.malformedConfiguration, "\(file):\(line): a string holds \\u0000, which no setting takes")
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            let line = error.source.begin.line
            let key = lines.key(onLine: line)
            var problem = error.description
            if problem.contains("integer: leading zero") { problem += "; write an octal number as 0o440, or a mode as the string \"0440\"" }
            throw DaemonError(
                .malformedConfiguration, "\(file):\(line): " + (key.map { "'\($0)': " } ?? "") + problem, key: key)
        } catch {
            throw DaemonError(.malformedConfiguration, "\(file): \(error)")
        }
        var result: [String: (value: Value, line: Int)] = [:]
        try flatten(table, prefix: "", lines: lines, file: file, into: &result)
        return result
    }

    /// `key` as TOML writes it: bare when it can be, otherwise quoted.
    static func written(key: String) -> String {
        if !key.isEmpty, key.utf8.allSatisfy(TOMLKeyLines.isBareKeyByte) { return key }
        var quoted = "\""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    private static func flatten(
        _ table: TOMLTable, prefix: String, lines: TOMLKeyLines, file: String, into result: inout [String: (value: Value, line: Int)]
    ) throws(DaemonError) {
        for key in table.keys.sorted() {
            guard let node = table[key] else { continue }
            let path = prefix + written(key: key)
            let line = lines[path]
            func refuse(_ problem: String) -> DaemonError {
                DaemonError(.malformedConfiguration, "\(file):\(line.map(String.init) ?? "?"): '\(path)' \(problem)", key: path)
            }
            if let inner = node.table {
                guard !inner.inline else { throw refuse("is an inline table ({...}), which reqd's configuration does not use") }
                try flatten(inner, prefix: path + ".", lines: lines, file: file, into: &result)
                continue
            }
            guard let value = try value(node, refuse: refuse) else { continue }
            result[path] = (value, line ?? 0)
        }
    }

    private static func value(_ node: any TOMLValueConvertible, refuse: (String) -> DaemonError) throws(DaemonError) -> Value? {
        switch node.type {
        case .string: return node.string.map(Value.string)
        case .int: return node.int.map { .integer(Int64($0)) }
        case .double: return node.double.map(Value.float)
        case .bool: return node.bool.map(Value.boolean)
        case .array:
            guard let array = node.array else { return nil }
            var elements: [Value] = []
            for element in array {
                if element.type == .table { throw refuse("holds tables ([[...]] or {...}), which reqd's configuration does not use") }
                if let value = try value(element, refuse: refuse) { elements.append(value) }
            }
            return .array(elements)
        case .table: throw refuse("is a table")
        case .date, .time, .dateTime: throw refuse("is a date or time, which no setting takes")
        }
    }
}
