/// Where the daemon's logs go.
public enum LogTarget: String, Sendable, CaseIterable {
    /// journald when stderr is connected to it, otherwise stderr.
    case auto
    case journal
    case stderr
}
