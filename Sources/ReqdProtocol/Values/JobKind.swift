/// The kind of a job, as named on the wire.
public enum JobKind: String, Codable, Sendable, CaseIterable, Hashable {
    case countdown
    case poll
}
