import ReqdProtocol

/// The text of a `list` cursor: where a page ended, as `next` gives it and `after` takes it back.
///
/// It names the last job of the page by its place in creation order (`created_at` in nanoseconds
/// and its id), so it stays good when that job ends or is forgotten before the next page is asked for.
enum ListCursor {
    static func text(_ entry: ListIndex.Entry) -> String { "\(entry.createdAt):\(entry.id.rawValue)" }

    /// The place a cursor names; nil for text that is not one.
    static func entry(_ text: String) -> ListIndex.Entry? {
        guard let colon = text.firstIndex(of: ":"), let createdAt = Int64(text[..<colon]) else { return nil }
        let id = JobID(String(text[text.index(after: colon)...]))
        guard id.kind != nil else { return nil }
        return ListIndex.Entry(createdAt: createdAt, id: id)
    }
}
