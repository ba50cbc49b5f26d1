#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One JSON object of a request line or a stored document, read field by field with the rules of Foundation's keyed
/// decoding container: a missing or null optional field is nil, the first of two equal keys wins,
/// and keys the reader never asks for are ignored (the top level checks them against the
/// operation's fields itself, and a nested request object against a request's).
package struct WireObject {
    /// A member: the tape entries of its key and of its value.
    struct Member {
        var key: Int
        var value: Int
    }

    let values: WireValues
    /// The object's tape entry.
    let entry: Int
    /// The keys written with escapes, decoded, by their tape entry; empty (and never allocated)
    /// for an object without one, which is nearly every object.
    private var escapedKeys: [Int: String] = [:]

    /// The object at tape entry `entry`. Every key is read and checked now, as Foundation reads
    /// them all when it opens the object.
    init(_ values: WireValues, entry: Int) throws(WireDecodingFailure) {
        self.values = values
        self.entry = entry
        for member in members {
            if values.kind(member.key) == .string {
                escapedKeys[member.key] = try WireValues.unescape(values.text(member.key))
            } else {
                try WireValues.checkUTF8(values.text(member.key))
            }
        }
    }

    /// The keys that lead here, for error messages: found from the tape only when one is made,
    /// since building them for every nested object cost an array each.
    package var path: [String] { values.path(to: entry) }

    /// The members in order, read off the tape.
    var members: Members { Members(tape: values.tape, index: entry + 1, end: Int(values.tape.entries[entry].next)) }

    /// The members of an object in order: a plain iterator, as a closure-made sequence cost an
    /// allocation for every field a reader looked up.
    struct Members: Sequence, IteratorProtocol {
        let tape: JSONTape
        var index: Int
        let end: Int

        mutating func next() -> Member? {
            guard index < end else { return nil }
            let member = Member(key: index, value: index + 1)
            index = tape.after(index + 1)
            return member
        }
    }

    /// The key of a member as a `String`.
    func key(of member: Member) -> String { escapedKeys[member.key] ?? values.key(member.key) }

    /// Whether a member's key is `name`.
    func member(_ member: Member, isNamed name: String) -> Bool {
        var name = name
        return name.withUTF8 { self.member(member, hasKey: $0) }
    }

    private func member(_ member: Member, hasKey name: UnsafeBufferPointer<UInt8>) -> Bool {
        if !escapedKeys.isEmpty, let decoded = escapedKeys[member.key] { return decoded.utf8.elementsEqual(name) }
        let key = values.text(member.key)
        guard key.count == name.count else { return false }
        return name.isEmpty || memcmp(key.baseAddress!, name.baseAddress!, name.count) == 0
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
        name.withUTF8Buffer { name in
            for member in members where self.member(member, hasKey: name) { return member.value }
            return nil
        }
    }

    /// The entry of a present, non-null value; nil for a missing or null one.
    func present(_ name: StaticString) -> Int? {
        guard let entry = entry(name), values.kind(entry) != .null else { return nil }
        return entry
    }

    func required(_ name: StaticString) throws(WireDecodingFailure) -> Int {
        guard let entry = entry(name) else { throw .keyNotFound(path: path, key: name.description) }
        return entry
    }

    @usableFromInline func fieldPath(_ name: StaticString) -> [String] { path + [name.description] }

    // MARK: Fields

    /// A required string field.
    package func string(_ name: StaticString) throws(WireDecodingFailure) -> String {
        try values.string(required(name), at: fieldPath(name))
    }

    /// A string field; nil when missing or null.
    package func optionalString(_ name: StaticString) throws(WireDecodingFailure) -> String? {
        guard let entry = present(name) else { return nil }
        return try values.string(entry, at: fieldPath(name))
    }

    /// A required whole-number field.
    package func int64(_ name: StaticString) throws(WireDecodingFailure) -> Int64 {
        try values.int64(required(name), "Int64", at: fieldPath(name))
    }

    /// A whole-number field; nil when missing or null.
    package func optionalInt64(_ name: StaticString) throws(WireDecodingFailure) -> Int64? {
        guard let entry = present(name) else { return nil }
        return try values.int64(entry, "Int64", at: fieldPath(name))
    }

    /// A required whole-number field, as an `Int`.
    package func int(_ name: StaticString) throws(WireDecodingFailure) -> Int {
        Int(try values.int64(required(name), "Int", at: fieldPath(name)))
    }

    /// A whole-number field as an `Int`; nil when missing or null.
    package func optionalInt(_ name: StaticString) throws(WireDecodingFailure) -> Int? {
        guard let entry = present(name) else { return nil }
        return Int(try values.int64(entry, "Int", at: fieldPath(name)))
    }

    /// A Boolean field; nil when missing or null.
    package func optionalBool(_ name: StaticString) throws(WireDecodingFailure) -> Bool? {
        guard let entry = present(name) else { return nil }
        return try values.bool(entry, at: fieldPath(name))
    }

    /// An array of strings; nil when missing or null.
    package func optionalStrings(_ name: StaticString) throws(WireDecodingFailure) -> [String]? {
        guard let entry = present(name) else { return nil }
        guard values.kind(entry) == .array else { throw values.mismatch(entry, "Array<Any>", at: fieldPath(name)) }
        return try elements(of: entry) { element, index throws(WireDecodingFailure) in
            try values.string(element, at: fieldPath(name) + ["Index \(index)"])
        }
    }

    /// A nested object, read as a `T`.
    func optionalObject<T>(_ name: StaticString, _ read: (WireObject) throws(WireDecodingFailure) -> T) throws(WireDecodingFailure) -> T? {
        guard let object = try optionalObject(name) else { return nil }
        return try read(object)
    }

    /// A nested object; nil when missing or null.
    package func optionalObject(_ name: StaticString) throws(WireDecodingFailure) -> WireObject? {
        guard let entry = present(name) else { return nil }
        return try object(entry, at: fieldPath(name))
    }

    /// A required array of objects, each read as a `T`.
    func objects<T>(_ name: StaticString, _ read: (WireObject) throws(WireDecodingFailure) -> T) throws(WireDecodingFailure) -> [T] {
        var objects: [T] = []
        try eachObject(name, reserving: { objects.reserveCapacity($0) }) { object throws(WireDecodingFailure) in objects.append(try read(object)) }
        return objects
    }

    /// Each object of a required array of objects, in order, once `reserving` has been told how
    /// many there are.
    package func eachObject(
        _ name: StaticString, reserving: (Int) -> Void, _ body: (WireObject) throws(WireDecodingFailure) -> Void
    ) throws(WireDecodingFailure) {
        let entry = try required(name)
        if values.kind(entry) == .null {
            throw .wrongType(path: fieldPath(name), description: "Cannot get unkeyed decoding container -- found null value instead")
        }
        guard values.kind(entry) == .array else { throw values.mismatch(entry, "Array<Any>", at: fieldPath(name)) }
        reserving(Int(values.tape.entries[entry].count))
        var element = entry + 1
        var index = 0
        let end = Int(values.tape.entries[entry].next)
        while element < end {
            try body(object(element, at: fieldPath(name) + ["Index \(index)"]))
            element = values.tape.after(element)
            index += 1
        }
    }

    /// Each element of the array at tape entry `entry`, read by `read` from its entry and index.
    func elements<T>(of entry: Int, _ read: (Int, Int) throws(WireDecodingFailure) -> T) throws(WireDecodingFailure) -> [T] {
        var elements: [T] = []
        elements.reserveCapacity(Int(values.tape.entries[entry].count))
        var element = entry + 1
        let end = Int(values.tape.entries[entry].next)
        while element < end {
            elements.append(try read(element, elements.count))
            element = values.tape.after(element)
        }
        return elements
    }

    func object(_ entry: Int, at path: @autoclosure () -> [String]) throws(WireDecodingFailure) -> WireObject {
        if values.kind(entry) == .null {
            throw .wrongType(path: path(), description: "Cannot get keyed decoding container -- found null value instead")
        }
        guard values.kind(entry) == .object else { throw values.mismatch(entry, "Dictionary<String, Any>", at: path()) }
        return try WireObject(values, entry: entry)
    }

    /// A string field that names one case of `T`.
    ///
    /// Inlinable, so that a reader in another module gets it specialized for its `T`, not a
    /// generic call that looks up `T`'s metadata for every field of every row a restart reads.
    @inlinable package func optionalCase<T: RawRepresentable>(_ name: StaticString, of type: T.Type) throws(WireDecodingFailure) -> T? where T.RawValue == String {
        guard let raw = try optionalString(name) else { return nil }
        guard let value = T(rawValue: raw) else {
            throw .invalid(path: fieldPath(name), description: "Cannot initialize \(T.self) from invalid String value \(raw)")
        }
        return value
    }

    /// An RFC 3339 date-time field; nil when missing or null.
    package func optionalWallTime(_ name: StaticString) throws(WireDecodingFailure) -> WallTime? {
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
