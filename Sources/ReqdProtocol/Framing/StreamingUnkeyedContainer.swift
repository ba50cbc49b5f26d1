struct StreamingUnkeyedContainer: UnkeyedEncodingContainer {
    let writer: JSONByteWriter
    let frame: JSONFrame
    var codingPath: [any CodingKey] { [] }
    var count: Int { frame.count }

    mutating func encodeNil() throws {
        frame.separate(writer)
        writer.writeNull()
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        frame.separate(writer)
        try writer.write(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        writer.unsupported = true
        return KeyedEncodingContainer(StreamingKeyedContainer<NestedKey>(writer: JSONByteWriter(), frame: JSONFrame()))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        writer.unsupported = true
        return StreamingUnkeyedContainer(writer: JSONByteWriter(), frame: JSONFrame())
    }

    mutating func superEncoder() -> any Encoder {
        writer.unsupported = true
        return StreamingEncoder(writer: JSONByteWriter(), frame: JSONFrame())
    }
}
