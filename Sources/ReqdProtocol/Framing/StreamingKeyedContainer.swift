struct StreamingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: JSONByteWriter
    let frame: JSONFrame
    var codingPath: [any CodingKey] { [] }

    private func key(_ key: Key) {
        frame.separate(writer)
        writer.write(string: key.stringValue)
        writer.bytes.append(UInt8(ascii: ":"))
    }

    mutating func encodeNil(forKey key: Key) throws {
        self.key(key)
        writer.writeNull()
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        self.key(key)
        try writer.write(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        writer.unsupported = true
        return KeyedEncodingContainer(StreamingKeyedContainer<NestedKey>(writer: JSONByteWriter(), frame: JSONFrame()))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        writer.unsupported = true
        return StreamingUnkeyedContainer(writer: JSONByteWriter(), frame: JSONFrame())
    }

    mutating func superEncoder() -> any Encoder {
        writer.unsupported = true
        return StreamingEncoder(writer: JSONByteWriter(), frame: JSONFrame())
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder() }
}
