/// Response headers as `Name: value` lines, held as one string with a line break between each.
///
/// A kept answer or a logged attempt lives for a job's retention, and one allocation for all of
/// its headers costs a third of one per header. A response header cannot hold a line break, so
/// the lines split back as they were.
struct HeaderLines: Sendable, Hashable {
    private var joined: String

    init(_ lines: [String]) {
        joined = lines.joined(separator: "\n")
    }

    /// Whether both hold their text in one allocation; false for text short enough to be held
    /// inline, which has none.
    func sharesStorage(with other: HeaderLines) -> Bool {
        guard joined.utf8.count > 15 else { return false }
        let mine = joined.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
        let theirs = other.joined.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
        return mine != nil && mine == theirs
    }

    var lines: [String] {
        joined.isEmpty ? [] : joined.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
}
