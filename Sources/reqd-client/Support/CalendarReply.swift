/// What `calendar --json` prints.
struct CalendarReply: Encodable {
    var normalized: String
    var zone: String
    var next: [String]
}
