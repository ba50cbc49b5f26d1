import ReqdProtocol

/// Request bodies reqd writes itself (reports), through the project's one JSON writer.
enum JSONBody {
    /// The value as compact JSON.
    ///
    /// The report types hold only strings, integers and enums; `CompactJSONEncoder` fails only on
    /// a non-finite floating-point number, so a failure here is a programming error.
    static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        do {
            return try CompactJSONEncoder().encode(value)
        } catch {
            preconditionFailure("a report holds a value JSON cannot write: \(error)")
        }
    }
}
