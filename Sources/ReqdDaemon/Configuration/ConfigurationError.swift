/// A configuration problem, naming the key it is about.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// The setting, such as `socket.mode`, when the problem is about one.
    public var key: String?
    public var message: String

    public init(key: String?, _ message: String) {
        self.key = key
        self.message = message
    }

    public var description: String { message }
}
