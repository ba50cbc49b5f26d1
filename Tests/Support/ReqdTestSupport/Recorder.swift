import Synchronization

/// Lets connections reach the server once it exists, and counts them.
final class Recorder: Sendable {
    let server: Mutex<TestHTTPServer?>
    let accepted = Atomic(0)
    init(server: TestHTTPServer?) { self.server = Mutex(server) }
}
