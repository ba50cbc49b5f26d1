/// The reads a stored document needs beyond a request line's: the store keeps job details as JSON
/// (written by `CompactJSONEncoder`, and attempts by `JSONWriter`) and reads them back at every
/// start, so they are read by hand with the same rules as a request line rather than through
/// `JSONDecoder`.
extension WireObject {
    /// Opens the object `text` holds and gives it to `body`; false when it is not a JSON object
    /// or `body` refuses it.
    package static func opening(_ text: String, _ body: (WireObject) throws(WireDecodingFailure) -> Void) -> Bool {
        var text = text
        return text.withUTF8 { bytes -> Bool in
            guard let tape = try? JSONTape(scanning: bytes) else { return false }
            let values = WireValues(bytes: bytes, tape: tape)
            guard values.kind(0) == .object else { return false }
            do throws(WireDecodingFailure) {
                try body(WireObject(values, entry: 0))
                return true
            } catch {
                return false
            }
        }
    }

    /// A required Boolean field.
    package func bool(_ name: StaticString) throws(WireDecodingFailure) -> Bool {
        try values.bool(required(name), at: fieldPath(name))
    }

    /// A required number field, as a `Double`.
    package func double(_ name: StaticString) throws(WireDecodingFailure) -> Double {
        try values.double(required(name), at: fieldPath(name))
    }

    /// A required RFC 3339 date-time field.
    package func wallTime(_ name: StaticString) throws(WireDecodingFailure) -> WallTime {
        guard let value = try optionalWallTime(name) else { throw missingString(name) }
        return value
    }

    /// A number field as a `Double`; nil when missing or null.
    package func optionalDouble(_ name: StaticString) throws(WireDecodingFailure) -> Double? {
        guard let entry = present(name) else { return nil }
        return try values.double(entry, at: fieldPath(name))
    }

    /// A required nested object.
    package func object(_ name: StaticString) throws(WireDecodingFailure) -> WireObject {
        try object(required(name), at: fieldPath(name))
    }

    /// A string field that names one case of `T`, specialized in the reader's module as
    /// `optionalCase` is.
    @inlinable package func `case`<T: RawRepresentable>(_ name: StaticString, of type: T.Type) throws(WireDecodingFailure) -> T where T.RawValue == String {
        guard let value = try optionalCase(name, of: type) else { throw missingString(name) }
        return value
    }

    /// The failure for a required string field that is missing or null.
    @usableFromInline func missingString(_ name: StaticString) -> WireDecodingFailure {
        do throws(WireDecodingFailure) {
            return values.mismatch(try required(name), "String", at: fieldPath(name))
        } catch {
            return error
        }
    }

    /// An array of numbers each in `0...255`, as Foundation reads a `[UInt8]`.
    package func optionalBytes(_ name: StaticString) throws(WireDecodingFailure) -> [UInt8]? {
        guard let entry = present(name) else { return nil }
        guard values.kind(entry) == .array else { throw values.mismatch(entry, "Array<Any>", at: fieldPath(name)) }
        return try elements(of: entry) { element, _ throws(WireDecodingFailure) in
            guard let byte = UInt8(exactly: try values.int64(element, "UInt8", at: [])) else { throw .corruptValue }
            return byte
        }
    }

    /// An object whose every member is an object read as a `T`, as Foundation reads a
    /// `[String: T]`: of two equal keys the first stands, and the other's value is not read.
    package func optionalObjectsByKey<T>(_ name: StaticString, _ read: (WireObject) throws(WireDecodingFailure) -> T) throws(WireDecodingFailure) -> [String: T]? {
        guard let entry = present(name) else { return nil }
        let object = try object(entry, at: fieldPath(name))
        var result: [String: T] = [:]
        for member in object.members {
            let key = object.key(of: member)
            guard result[key] == nil else { continue }
            result[key] = try read(object.object(member.value, at: object.path + [key]))
        }
        return result
    }
}
