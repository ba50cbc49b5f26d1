extension JSONWriter {
    /// Job counts by name and then by name, both sorted, as the summary and `metrics` give them.
    mutating func counts(_ counts: [String: [String: Int]]) {
        beginObject()
        for name in counts.keys.sorted() {
            key(name)
            beginObject()
            let inner = counts[name] ?? [:]
            for innerName in inner.keys.sorted() {
                key(innerName)
                integer(inner[innerName] ?? 0)
            }
            endObject()
        }
        endObject()
    }
}
