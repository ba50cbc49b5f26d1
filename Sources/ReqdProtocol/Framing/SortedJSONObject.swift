/// A dictionary written as a JSON object with its members sorted by name.
///
/// Swift's `Dictionary` encodes in its own order, which changes from run to run; a reply or a
/// client's `--json` output that holds one would then differ between two identical calls.
struct SortedJSONObject<Value: Encodable>: Encodable {
    let members: [String: Value]

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyCodingKey.self)
        for name in members.keys.sorted() {
            try container.encode(members[name], forKey: AnyCodingKey(name))
        }
    }
}
