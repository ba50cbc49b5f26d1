import Foundation
import ReqdDaemon
import ReqdTestSupport
import Synchronization
import Testing

/// A test HTTP server and a daemon whose jobs call it, with a client connection; stopped on deinit.
final class ServerFixture {
    let server: TestHTTPServer
    let directory = TemporaryDirectory()
    private(set) var daemon: Daemon
    private(set) var client: LineClient
    private var nextID = 100
    private let configure: (inout Configuration) -> Void

    init(
        timeoutSeconds: Int = 10, configure: @escaping (inout Configuration) -> Void = { _ in },
        handler: @escaping TestHTTPServer.Handler
    ) throws {
        server = try TestHTTPServer(handler: handler)
        self.configure = configure
        daemon = try startPollDaemon(in: directory, configure: configure)
        client = try LineClient(path: daemon.socketPath, timeoutSeconds: timeoutSeconds)
    }

    deinit {
        daemon.stop()
        server.shutdown()
    }

    /// Stops the daemon, runs `whileDown`, and starts a new one on the same state directory, with
    /// the same configuration.
    func restart(timeoutSeconds: Int = 10, whileDown: () -> Void = {}) throws {
        daemon.stop()
        whileDown()
        daemon = try startPollDaemon(in: directory, configure: configure)
        client = try LineClient(path: daemon.socketPath, timeoutSeconds: timeoutSeconds)
    }

    /// Sends a request with a fresh id and returns its reply.
    func call(_ fields: [String: Any], on connection: LineClient? = nil) throws -> [String: Any] {
        nextID += 1
        var request = fields
        request["id"] = nextID
        return try #require((connection ?? client).call(request))
    }

    /// Submits a request job and returns its reply.
    func submit(_ method: String, _ path: String, _ extra: [String: Any] = [:], on connection: LineClient? = nil) throws -> [String: Any] {
        var fields = extra
        fields["op"] = "submit"
        fields["method"] = method
        fields["url"] = server.url(path)
        return try call(fields, on: connection)
    }

    /// Registers a poll job on `path` and returns its id.
    func register(_ path: String, every: Int, until: String = #"/state == "done""#, _ extra: [String: Any] = [:]) throws -> String {
        nextID += 1
        var fields = extra
        fields["id"] = nextID
        let reply = try #require(client.call(poll(server.url(path), every: every, until: until, extra: fields)))
        return try #require(reply.job?["id"] as? String, "registration refused: \(reply)")
    }

    /// Waits for a job to end and returns its final view.
    func wait(_ job: String) throws -> [String: Any] {
        nextID += 1
        return try #require(client.call(["id": nextID, "op": "wait", "job": job])?.job)
    }

    /// Whether the server saw the client abandon the first request to `path`, within 2 s.
    func firstRequestAborted(_ path: String) -> Bool {
        for _ in 0..<100 {
            if server.records(path: path).first?.abortedByClient == true { return true }
            usleep(20_000)
        }
        return false
    }
}
