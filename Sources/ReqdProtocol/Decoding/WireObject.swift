/// One JSON object of a request line, read field by field with the rules of Foundation's keyed
/// decoding container: a missing or null optional field is nil, the first of two equal keys wins,
/// and keys the reader never asks for are ignored (the top level checks them against the
/// operation's fields itself, and a nested request object against a request's).
struct WireObject {
    /// A member: where its key's bytes are (or the key decoded, when it had escapes) and the
    /// tape entry of its value.
    struct Member {
        var keyStart: Int
        var keyCount: Int
        var decodedKey: String?
        var value: Int
    }

    let values: WireValues
    /// The keys that lead here, for error messages.
    let path: [String]
    private(set) var members: [Member] = []

    /// The object at tape entry `entry`. Every key is read and checked now, as Foundation reads
    /// them all when it opens the object.
    init(_ values: WireValues, entry: Int, path: [String]) throws(WireDecodingFailure) {
        self.values = values
        self.path = path
        let end = Int(values.tape.entries[entry].next)
        members.reserveCapacity(Int(values.tape.entries[entry].count) / 2)
        var index = entry + 1
        while index < end {
            let key = values.tape.entries[index]
            var member = Member(keyStart: Int(key.start), keyCount: Int(key.count), decodedKey: nil, value: index + 1)
            let keyBytes = UnsafeBufferPointer(rebasing: values.bytes[member.keyStart..<(member.keyStart + member.keyCount)])
            if key.kind == .string {
                member.decodedKey = try WireValues.unescape(keyBytes)
            } else {
                _ = try WireValues.utf8(keyBytes)
            }
            members.append(member)
            index = values.tape.after(index + 1)
        }
    }

    /// The key of a member as a `String`.
    func key(of member: Member) -> String {
        member.decodedKey ?? String(decoding: UnsafeBufferPointer(rebasing: values.bytes[member.keyStart..<(member.keyStart + member.keyCount)]), as: UTF8.self)
    }

    /// Whether a member's key is `name`.
    func member(_ member: Member, isNamed name: StaticString) -> Bool {
        name.withUTF8Buffer { self.member(member, hasKey: $0) }
    }

    /// Whether a member's key is `name`.
    func member(_ member: Member, isNamed name: String) -> Bool {
        var name = name
        return name.withUTF8 { self.member(member, hasKey: $0) }
    }

    private func member(_ member: Member, hasKey name: UnsafeBufferPointer<UInt8>) -> Bool {
        if let decoded = member.decodedKey { return decoded.utf8.elementsEqual(name) }
        guard member.keyCount == name.count else { return false }
        return UnsafeBufferPointer(rebasing: values.bytes[member.keyStart..<(member.keyStart + member.keyCount)]).elementsEqual(name)
    }

    /// The first key, in sorted order, that is not among `permitted`: the one an unknown-field
    /// error names, as the Codable reference named it.
    func firstKey(notIn permitted: [String]) -> String? {
        var extra: String?
        for member in members {
            guard !permitted.contains(where: { self.member(member, isNamed: $0) }) else { continue }
            let key = key(of: member)
            if extra.map({ key < $0 }) ?? true { extra = key }
        }
        return extra
    }

    /// The tape entry of the first member named `name`, if any.
    func entry(_ name: StaticString) -> Int? {
        for member in members where self.member(member, isNamed: name) { return member.value }
        return nil
    }

    /// The entry of a present, non-null value; nil for a missing or null one.
    private func present(_ name: StaticString) -> Int? {
        guard let entry = entry(name), values.kind(entry) != .null else { return nil }
        return entry
    }

    private func required(_ name: StaticString) throws(WireDecodingFailure) -> Int {
        guard let entry = entry(name) else { throw .keyNotFound(path: path, key: name.description) }
        return entry
    }

    private func fieldPath(_ name: StaticString) -> [String] { path + [name.description] }

    // MARK: Fields

    func string(_ name: StaticString) throws(WireDecodingFailure) -> String {
        try values.string(required(name), at: fieldPath(name))
    }

    func optionalString(_ name: StaticString) throws(WireDecodingFailure) -> String? {
        guard let entry = present(name) else { return nil }
        return try values.string(entry, at: fieldPath(name))
    }

    func int64(_ name: StaticString) throws(WireDecodingFailure) -> Int64 {
        try values.int64(required(name), "Int64", at: fieldPath(name))
    }

    func optionalInt64(_ name: StaticString) throws(WireDecodingFailure) -> Int64? {
        guard let entry = present(name) else { return nil }
        return try values.int64(entry, "Int64", at: fieldPath(name))
    }

    func int(_ name: StaticString) throws(WireDecodingFailure) -> Int {
        Int(try values.int64(required(name), "Int", at: fieldPath(name)))
    }

    func optionalInt(_ name: StaticString) throws(WireDecodingFailure) -> Int? {
        guard let entry = present(name) else { return nil }
        return Int(try values.int64(entry, "Int", at: fieldPath(name)))
    }

    func optionalBool(_ name: StaticString) throws(WireDecodingFailure) -> Bool? {
        guard let entry = present(name) else { return nil }
        return try values.bool(entry, at: fieldPath(name))
    }

    func optionalStrings(_ name: StaticString) throws(WireDecodingFailure) -> [String]? {
        guard let entry = present(name) else { return nil }
        guard values.kind(entry) == .array else { throw values.mismatch(entry, "Array<Any>", at: fieldPath(name)) }
        var strings: [String] = []
        strings.reserveCapacity(Int(values.tape.entries[entry].count))
        var element = entry + 1
        let end = Int(values.tape.entries[entry].next)
        while element < end {
            strings.append(try values.string(element, at: fieldPath(name) + ["Index \(strings.count)"]))
            element = values.tape.after(element)
        }
        return strings
    }

    /// A nested object, read as a `T`.
    func optionalObject<T>(_ name: StaticString, _ read: (WireObject) throws(WireDecodingFailure) -> T) throws(WireDecodingFailure) -> T? {
        guard let entry = present(name) else { return nil }
        return try read(object(entry, at: fieldPath(name)))
    }

    /// A required array of objects, each read as a `T`.
    func objects<T>(_ name: StaticString, _ read: (WireObject) throws(WireDecodingFailure) -> T) throws(WireDecodingFailure) -> [T] {
        let entry = try required(name)
        let path = fieldPath(name)
        if values.kind(entry) == .null {
            throw .wrongType(path: path, description: "Cannot get unkeyed decoding container -- found null value instead")
        }
        guard values.kind(entry) == .array else { throw values.mismatch(entry, "Array<Any>", at: path) }
        var elements: [T] = []
        var element = entry + 1
        let end = Int(values.tape.entries[entry].next)
        while element < end {
            elements.append(try read(object(element, at: path + ["Index \(elements.count)"])))
            element = values.tape.after(element)
        }
        return elements
    }

    private func object(_ entry: Int, at path: [String]) throws(WireDecodingFailure) -> WireObject {
        if values.kind(entry) == .null {
            throw .wrongType(path: path, description: "Cannot get keyed decoding container -- found null value instead")
        }
        guard values.kind(entry) == .object else { throw values.mismatch(entry, "Dictionary<String, Any>", at: path) }
        return try WireObject(values, entry: entry, path: path)
    }

    /// A string field that names one case of `T`.
    func optionalCase<T: RawRepresentable>(_ name: StaticString, of type: T.Type) throws(WireDecodingFailure) -> T? where T.RawValue == String {
        guard let raw = try optionalString(name) else { return nil }
        guard let value = T(rawValue: raw) else {
            throw .invalid(path: fieldPath(name), description: "Cannot initialize \(T.self) from invalid String value \(raw)")
        }
        return value
    }

    func optionalWallTime(_ name: StaticString) throws(WireDecodingFailure) -> WallTime? {
        guard let text = try optionalString(name) else { return nil }
        guard let value = WallTime(rfc3339: text) else {
            throw .invalid(path: fieldPath(name), description: "'\(text)' is not an RFC 3339 date-time between 1678 and 2262")
        }
        return value
    }

    /// A request id: an integer, or else a string.
    func requestID(_ name: StaticString) throws(WireDecodingFailure) -> RequestID {
        let entry = try required(name)
        switch values.kind(entry) {
        case .number, .numberWithExponent:
            if let number = try? values.int64(entry, "Int64", at: []) { return .number(number) }
        case .simpleString, .string:
            if let string = try? values.string(entry, at: []) { return .string(string) }
        default: break
        }
        throw .wrongType(path: fieldPath(name), description: "id must be an integer or a string")
    }
}
