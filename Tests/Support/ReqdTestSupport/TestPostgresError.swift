/// Why the test server could not start or do as asked.
public struct TestPostgresError: Error, CustomStringConvertible {
    /// What went wrong, with the program's output when one failed.
    public let description: String

    init(_ description: String) { self.description = description }
}
