/// Why the store could not do what it was asked.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: Sendable {
        case openFailed
        case writeFailed
        case full
        case unsupportedVersion
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
