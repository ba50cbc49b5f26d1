/// Reads the part of TOML 1.0 that reqd's configuration uses, and refuses everything else.
///
/// Accepted, exactly as TOML 1.0 defines them: `[table]` headers; bare, quoted and dotted keys;
/// basic, literal and multi-line strings; integers (decimal, `0x`, `0o`, `0b`); floats; booleans;
/// arrays (mixed, nested, over several lines, with comments); `#` comments. Refused with the line
/// named: inline tables, arrays of tables and dates, which no setting takes, and anything TOML
/// itself forbids, such as `mode = 0440` (a leading zero) or a key set twice.
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
        var parser = TOMLParser(text)
        let tree: TOMLTree
        do {
            tree = try parser.document()
        } catch {
            throw DaemonError(.malformedConfiguration, "\(file):\(error.line): \(error.problem)", key: error.key)
        }
        var result: [String: (value: Value, line: Int)] = [:]
        tree.forEachValue { path, value, line in
            result[path.map(TOMLParser.written(key:)).joined(separator: ".")] = (value, line)
        }
        return result
    }
}
