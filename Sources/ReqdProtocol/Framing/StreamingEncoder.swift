/// The `Encoder` handed to one value: its containers write to the shared buffer.
struct StreamingEncoder: Encoder {
    let writer: JSONByteWriter
    let frame: JSONFrame
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        switch frame.kind {
        case .none:
            frame.kind = .keyed
            writer.bytes.append(UInt8(ascii: "{"))
        case .keyed: break
        case .unkeyed, .single: writer.unsupported = true
        }
        return KeyedEncodingContainer(StreamingKeyedContainer(writer: writer, frame: frame))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        switch frame.kind {
        case .none:
            frame.kind = .unkeyed
            writer.bytes.append(UInt8(ascii: "["))
        case .unkeyed: break
        case .keyed, .single: writer.unsupported = true
        }
        return StreamingUnkeyedContainer(writer: writer, frame: frame)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        if frame.kind == .none { frame.kind = .single } else { writer.unsupported = true }
        return StreamingSingleValueContainer(writer: writer)
    }
}
