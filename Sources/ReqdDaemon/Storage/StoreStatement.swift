/// One SQL statement of a store transaction with its parameters, written with `?N` placeholders
/// (a backend whose database numbers them otherwise rewrites them).
struct StoreStatement: Sendable, Equatable {
    let sql: String
    let values: [StoreValue]

    init(_ sql: String, _ values: [StoreValue]) {
        self.sql = sql
        self.values = values
    }

    /// `sql` with each placeholder `?N` replaced by `replacement(N)`; nil as soon as that gives nil.
    static func replacingPlaceholders(in sql: String, _ replacement: (Int) -> String?) -> String? {
        var text = ""
        text.reserveCapacity(sql.utf8.count)
        var characters = sql.unicodeScalars[...]
        while let scalar = characters.popFirst() {
            guard scalar == "?", let first = characters.first, ("0"..."9").contains(first) else {
                text.unicodeScalars.append(scalar)
                continue
            }
            var number = 0
            while let digit = characters.first, ("0"..."9").contains(digit) {
                number = number * 10 + Int(digit.value - 48)
                characters.removeFirst()
            }
            guard let value = replacement(number) else { return nil }
            text += value
        }
        return text
    }
}
