import Foundation

/// Reads the part of TOML that reqd's configuration uses: `[tables]`, and `key = value` lines whose
/// values are strings, integers, booleans, floats or arrays of strings (which may span lines);
/// `#` comments. Anything else is an error that names the line.
enum TOMLSubset {
    /// A value from the file.
    enum Value: Equatable, Sendable {
        case string(String)
        case integer(Int64)
        case float(Double)
        case boolean(Bool)
        case strings([String])
    }

    /// Parses `text` into `table.key` → value.
    static func parse(_ text: String, file: String) throws(DaemonError) -> [String: (value: Value, line: Int)] {
        var result: [String: (value: Value, line: Int)] = [:]
        var table = ""
        // An array still open: its key, first line and text so far.
        var open: (key: String, line: Int, text: String)?
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            func malformed(_ problem: String, key: String? = nil) -> DaemonError {
                DaemonError(.malformedConfiguration, "\(file):\(number): \(problem)", key: key)
            }
            let line = stripComment(String(rawLine)).trimmingCharacters(in: .whitespaces)
            if var array = open {
                array.text += " " + line
                open = line.hasSuffix("]") ? nil : array
                guard open == nil else { continue }
                guard let value = parseValue(array.text) else {
                    throw malformed("cannot read the array '\(array.key)' begun on line \(array.line)", key: array.key)
                }
                result[array.key] = (value, array.line)
                continue
            }
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), !line.hasPrefix("[[") else { throw malformed("malformed table header '\(line)'") }
                table = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                guard !table.isEmpty else { throw malformed("empty table name") }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { throw malformed("expected 'key = value', got '\(line)'") }
            let key = String(line[..<equals]).trimmingCharacters(in: .whitespaces)
            let rawValue = String(line[line.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
            let fullKey = table.isEmpty ? key : "\(table).\(key)"
            guard !key.isEmpty else { throw malformed("missing key") }
            guard result[fullKey] == nil else { throw malformed("'\(fullKey)' is set twice", key: fullKey) }
            if rawValue.hasPrefix("["), !rawValue.hasSuffix("]") {
                open = (fullKey, number, rawValue)
                continue
            }
            guard let value = parseValue(rawValue) else {
                throw malformed("cannot read the value of '\(fullKey)': \(rawValue)", key: fullKey)
            }
            result[fullKey] = (value, number)
        }
        if let open {
            throw DaemonError(.malformedConfiguration, "\(file):\(open.line): the array '\(open.key)' is never closed", key: open.key)
        }
        return result
    }

    private static func stripComment(_ line: String) -> String {
        var inString = false
        var previous: Character = " "
        for (index, character) in zip(line.indices, line) {
            if character == "\"" && previous != "\\" { inString.toggle() }
            if character == "#" && !inString { return String(line[..<index]) }
            previous = character
        }
        return line
    }

    /// The strings of an array's inside, `"a", "b"`, with an optional trailing comma.
    private static func parseStrings(_ inside: Substring) -> Value? {
        var strings: [String] = []
        var rest = inside.trimmingCharacters(in: .whitespaces)[...]
        while !rest.isEmpty {
            guard rest.hasPrefix("\"") else { return nil }
            var end = rest.index(after: rest.startIndex)
            var escaping = false
            while end < rest.endIndex, escaping || rest[end] != "\"" {
                escaping = !escaping && rest[end] == "\\"
                end = rest.index(after: end)
            }
            guard end < rest.endIndex, case .string(let string)? = parseValue(String(rest[...end])) else { return nil }
            strings.append(string)
            rest = rest[rest.index(after: end)...].drop(while: \.isWhitespace)
            guard rest.isEmpty || rest.hasPrefix(",") else { return nil }
            rest = rest.dropFirst().drop(while: \.isWhitespace)
        }
        return .strings(strings)
    }

    private static func parseValue(_ text: String) -> Value? {
        if text.hasPrefix("["), text.hasSuffix("]") { return parseStrings(text.dropFirst().dropLast()) }
        if text == "true" { return .boolean(true) }
        if text == "false" { return .boolean(false) }
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
            var result = ""
            var escaping = false
            for character in text.dropFirst().dropLast() {
                if escaping {
                    switch character {
                    case "n": result.append("\n")
                    case "t": result.append("\t")
                    case "\\", "\"": result.append(character)
                    default: return nil
                    }
                    escaping = false
                } else if character == "\\" {
                    escaping = true
                } else if character == "\"" {
                    return nil
                } else {
                    result.append(character)
                }
            }
            return escaping ? nil : .string(result)
        }
        let digits = text.replacingUnderscores()
        if let integer = Int64(digits) { return .integer(integer) }
        if digits.hasPrefix("0o"), let octal = Int64(digits.dropFirst(2), radix: 8) { return .integer(octal) }
        if let float = Double(digits), float.isFinite { return .float(float) }
        return nil
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String { String(filter { $0 != "_" }) }
}
