extension JSONValue {
    /// The value as compact JSON text (RFC 8259), object members sorted by name so the text is stable.
    public var jsonText: String {
        var text = ""
        write(to: &text)
        return text
    }

    private func write(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .number(let value):
            if value == value.rounded(), abs(value) < 1e15 {
                text += String(Int64(value))
            } else {
                text += value.isFinite ? String(value) : "null"
            }
        case .string(let value): Self.write(string: value, to: &text)
        case .array(let values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                value.write(to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, (name, value)) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { text += "," }
                Self.write(string: name, to: &text)
                text += ":"
                value.write(to: &text)
            }
            text += "}"
        }
    }

    private static func write(string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
