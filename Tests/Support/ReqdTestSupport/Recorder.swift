import Synchronization

/// Lets connections reach the server once it exists.
final class Recorder: Sendable {
    let server: Mutex<TestHTTPServer?>
    init(server: TestHTTPServer?) { self.server = Mutex(server) }
}
