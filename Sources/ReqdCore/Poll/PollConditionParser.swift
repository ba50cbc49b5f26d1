/// A recursive-descent parser for `PollCondition`; see its grammar.
struct PollConditionParser {
    private let characters: [Character]
    private var index = 0

    init(_ text: String) { characters = Array(text) }

    mutating func parse() throws(PollConditionError) -> [PollCondition.Clause] {
        var clauses: [PollCondition.Clause] = []
        skipSpaces()
        guard index < characters.count else { throw error("the condition is empty") }
        while true {
            clauses.append(try clause())
            skipSpaces()
            if index == characters.count { return clauses }
            guard take("&&") else { throw error("expected '&&' or the end of the condition") }
            skipSpaces()
        }
    }

    private mutating func clause() throws(PollConditionError) -> PollCondition.Clause {
        if peekWord("status") {
            index += 6
            skipSpaces()
            if peekWord("in") {
                index += 2
                skipSpaces()
                let start = index
                let low = try integer()
                guard take("..") else { throw error("expected '..' in a status range such as 200..299") }
                let high = try integer()
                guard low <= high else { throw PollConditionError(column: start + 1, "the range \(low)..\(high) is empty") }
                return .statusIn(low...high)
            }
            let comparison = try comparisonOperator()
            skipSpaces()
            return .status(comparison, try integer())
        }
        guard index < characters.count, characters[index] == "/" else {
            throw error("expected a JSON Pointer such as /state, or 'status'")
        }
        let start = index
        while index < characters.count, !characters[index].isWhitespace, !"=!<>".contains(characters[index]) {
            index += 1
        }
        guard let pointer = JSONPointer(String(characters[start..<index])) else {
            throw PollConditionError(column: start + 1, "'\(String(characters[start..<index]))' is not a valid JSON Pointer (use ~0 for ~ and ~1 for /)")
        }
        skipSpaces()
        let comparison = try comparisonOperator()
        skipSpaces()
        return .value(pointer, comparison, try literal())
    }

    private mutating func comparisonOperator() throws(PollConditionError) -> PollCondition.Comparison {
        for comparison in PollCondition.Comparison.allCases where take(comparison.rawValue) {
            return comparison
        }
        throw error("expected an operator: ==, !=, <, <=, > or >=")
    }

    private mutating func integer() throws(PollConditionError) -> Int {
        let start = index
        while index < characters.count, characters[index].isASCII, characters[index].isNumber { index += 1 }
        guard index > start, let value = Int(String(characters[start..<index])) else {
            index = start
            throw error("expected a whole number")
        }
        return value
    }

    private mutating func literal() throws(PollConditionError) -> JSONValue {
        guard index < characters.count else { throw error("expected a JSON value") }
        for (word, value) in [("true", JSONValue.bool(true)), ("false", .bool(false)), ("null", .null)] where peekWord(word) {
            index += word.count
            return value
        }
        if characters[index] == "\"" { return .string(try string()) }
        let start = index
        if index < characters.count, characters[index] == "-" { index += 1 }
        while index < characters.count, characters[index].isASCII,
            characters[index].isNumber || ".eE+-".contains(characters[index])
        {
            index += 1
        }
        let text = String(characters[start..<index])
        guard !text.isEmpty, text != "-", let number = Double(text), number.isFinite else {
            index = start
            throw error("expected a JSON value: a \"string\", a number, true, false or null")
        }
        return .number(number)
    }

    private mutating func string() throws(PollConditionError) -> String {
        let start = index
        index += 1
        var result = ""
        while index < characters.count {
            let character = characters[index]
            index += 1
            switch character {
            case "\"":
                return result
            case "\\":
                guard index < characters.count else { break }
                let escaped = characters[index]
                index += 1
                switch escaped {
                case "\"", "\\", "/": result.append(escaped)
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                case "b": result.append("\u{8}")
                case "f": result.append("\u{C}")
                case "u":
                    guard index + 4 <= characters.count,
                        let code = UInt32(String(characters[index..<(index + 4)]), radix: 16),
                        let scalar = Unicode.Scalar(code)
                    else { throw PollConditionError(column: index - 1, "bad \\u escape") }
                    result.unicodeScalars.append(scalar)
                    index += 4
                default:
                    throw PollConditionError(column: index - 1, "unknown escape '\\\(escaped)'")
                }
            default:
                result.append(character)
            }
        }
        throw PollConditionError(column: start + 1, "the string is not closed with '\"'")
    }

    private mutating func skipSpaces() {
        while index < characters.count, characters[index].isWhitespace { index += 1 }
    }

    private mutating func take(_ token: String) -> Bool {
        let token = Array(token)
        guard index + token.count <= characters.count, Array(characters[index..<(index + token.count)]) == token else {
            return false
        }
        index += token.count
        return true
    }

    private func peekWord(_ word: String) -> Bool {
        let word = Array(word)
        guard index + word.count <= characters.count, Array(characters[index..<(index + word.count)]) == word else {
            return false
        }
        let after = index + word.count
        return after == characters.count || !(characters[after].isLetter || characters[after].isNumber || characters[after] == "_")
    }

    private func error(_ message: String) -> PollConditionError {
        PollConditionError(column: index + 1, message)
    }
}
