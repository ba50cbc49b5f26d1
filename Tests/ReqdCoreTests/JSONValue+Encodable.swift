@testable import ReqdCore

extension JSONValue: Encodable {
    /// Writes the value as JSON, object members sorted by name so the text is stable.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values {
                try container.encode(value)
            }
        case .object(let members):
            var container = encoder.container(keyedBy: MemberName.self)
            for (name, value) in members.sorted(by: { $0.key < $1.key }) {
                try container.encode(value, forKey: MemberName(stringValue: name))
            }
        }
    }

    /// An object member's name as a coding key.
    private struct MemberName: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
