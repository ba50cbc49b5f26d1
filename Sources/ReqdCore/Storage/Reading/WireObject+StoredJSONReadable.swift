import ReqdProtocol

/// The readers' generic reads, kept in the readers' module so that each use is specialized for its
/// type. Called in another module a generic read was not specialized: it looked up its type's
/// metadata and copied each value through its value witnesses, for every field of every row a
/// restart reads.
extension WireObject {
    /// The object `text` holds, read as a `T`; nil where `JSONDecoder` would fail.
    static func reading<T: StoredJSONReadable>(_ text: String, as type: T.Type) -> T? {
        var value: T?
        guard opening(text, { object throws(WireDecodingFailure) in value = try T(stored: object) }) else { return nil }
        return value
    }

    /// A nested object read as a `T`; nil when missing or null.
    func optionalObject<T: StoredJSONReadable>(_ name: StaticString, as type: T.Type) throws(WireDecodingFailure) -> T? {
        guard let object = try optionalObject(name) else { return nil }
        return try T(stored: object)
    }

    /// A required nested object read as a `T`.
    func object<T: StoredJSONReadable>(_ name: StaticString, as type: T.Type) throws(WireDecodingFailure) -> T {
        try T(stored: object(name))
    }

    /// A required array of objects, each read as a `T`.
    func objects<T: StoredJSONReadable>(_ name: StaticString, as type: T.Type) throws(WireDecodingFailure) -> [T] {
        var objects: [T] = []
        try eachObject(name, reserving: { objects.reserveCapacity($0) }) { object throws(WireDecodingFailure) in
            objects.append(try T(stored: object))
        }
        return objects
    }
}
