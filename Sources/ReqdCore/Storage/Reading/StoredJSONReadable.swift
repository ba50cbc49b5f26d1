import ReqdProtocol

/// A stored value that reads itself, by hand, from the JSON object its `Codable` form writes.
///
/// Every start reads each durable job's `detail` back. Through `JSONDecoder` that was 55% of a
/// restart of 1,000,000 schedules, which took 26.5 s (BENCHMARKS.md). The readers follow the
/// types' `Codable` conformances key for key, with `JSONDecoder`'s rules (`WireObject`), and a
/// differential test holds them to that; the `Codable` conformances stay as the reference and
/// for writing.
package protocol StoredJSONReadable {
    /// Reads the value from its object, refusing what `JSONDecoder` refuses.
    init(stored object: WireObject) throws(WireDecodingFailure)

    /// The value `text` holds; nil where `JSONDecoder` would fail.
    ///
    /// A requirement, not only an extension, so that a call from another module reaches a witness
    /// specialized for the type rather than the generic extension.
    init?(storedJSON text: String)
}

extension StoredJSONReadable {
    package init?(storedJSON text: String) {
        guard let value = WireObject.reading(text, as: Self.self) else { return nil }
        self = value
    }
}
