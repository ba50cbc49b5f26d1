/// A recursive-descent parser for `PollCondition`; see its grammar.
struct PollConditionParser {
    private let characters: [Character]
    /// The text's UTF-8, and where each character starts in it (one more entry, for the end):
    /// literals are read in place, so a long condition costs its length once, not once a clause.
    private let utf8: [UInt8]
    private let offsets: [Int]
    private var index = 0

    init(_ text: String) {
        characters = Array(text)
        utf8 = Array(text.utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(characters.count + 1)
        var offset = 0
        for character in characters {
            offsets.append(offset)
            offset += character.utf8.count
        }
        offsets.append(offset)
        self.offsets = offsets
    }

    mutating func parse() throws(SchedulerError) -> [PollCondition.Clause] {
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

    private mutating func clause() throws(SchedulerError) -> PollCondition.Clause {
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
                guard low <= high else { throw SchedulerError.badCondition(column: start + 1, "the range \(low)..\(high) is empty") }
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
            throw SchedulerError.badCondition(column: start + 1, "'\(String(characters[start..<index]))' is not a valid JSON Pointer (use ~0 for ~ and ~1 for /)")
        }
        skipSpaces()
        let comparison = try comparisonOperator()
        skipSpaces()
        return .value(pointer, comparison, try literal())
    }

    private mutating func comparisonOperator() throws(SchedulerError) -> PollCondition.Comparison {
        for comparison in PollCondition.Comparison.allCases where take(comparison.rawValue) {
            return comparison
        }
        throw error("expected an operator: ==, !=, <, <=, > or >=")
    }

    private mutating func integer() throws(SchedulerError) -> Int {
        let start = index
        while index < characters.count, characters[index].isASCII, characters[index].isNumber { index += 1 }
        guard index > start, let value = Int(String(characters[start..<index])) else {
            index = start
            throw error("expected a whole number")
        }
        return value
    }

    /// A JSON value, read by the same parser as response bodies; columns count characters.
    private mutating func literal() throws(SchedulerError) -> JSONValue {
        // The character at a byte offset: the last that starts at or before it.
        func character(at byte: Int) -> Int {
            var low = 0
            var high = offsets.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if offsets[middle] <= byte { low = middle } else { high = middle - 1 }
            }
            return low
        }
        do {
            let (value, end) = try JSONParser.prefix(utf8, from: offsets[index])
            index = character(at: end)
            return value
        } catch {
            throw SchedulerError.badCondition(column: character(at: error.offset) + 1, error.message)
        }
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

    private func error(_ message: String) -> SchedulerError {
        SchedulerError.badCondition(column: index + 1, message)
    }
}
