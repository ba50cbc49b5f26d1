/// A test that cannot go on: the message says what it found instead.
struct TestFailure: Error, CustomStringConvertible {
    var message: String

    init(_ message: String) { self.message = message }

    var description: String { message }
}
