/// An RFC 6901 JSON Pointer such as `/progress` or `/items/0/state`.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    /// The unescaped reference tokens; empty for the whole document.
    public let tokens: [String]

    /// Parses a pointer: empty (the whole document) or `/`-separated tokens with `~0` and `~1` escapes.
    public init?(_ text: String) {
        guard !text.isEmpty else {
            tokens = []
            return
        }
        guard text.hasPrefix("/") else { return nil }
        var parsed: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var escaping = false
            for character in raw {
                if escaping {
                    switch character {
                    case "0": token.append("~")
                    case "1": token.append("/")
                    default: return nil
                    }
                    escaping = false
                } else if character == "~" {
                    escaping = true
                } else {
                    token.append(character)
                }
            }
            if escaping { return nil }
            parsed.append(token)
        }
        tokens = parsed
    }

    /// The value the pointer names in `document`, or nil when it names nothing.
    public func resolve(in document: JSONValue) -> JSONValue? {
        var current = document
        for token in tokens {
            switch current {
            case .object(let members):
                guard let next = members[token] else { return nil }
                current = next
            case .array(let elements):
                // RFC 6901: `0`, or digits without a leading zero; no sign.
                guard token.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                    token == "0" || !token.hasPrefix("0"), let index = Int(token), index < elements.count
                else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    public var description: String {
        tokens.map { "/" + $0.replacing("~", with: "~0").replacing("/", with: "~1") }.joined()
    }
}
