struct StreamingSingleValueContainer: SingleValueEncodingContainer {
    let writer: JSONByteWriter
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { writer.writeNull() }

    mutating func encode<T: Encodable>(_ value: T) throws { try writer.write(value) }
}
