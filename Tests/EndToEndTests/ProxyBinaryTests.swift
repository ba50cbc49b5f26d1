import Foundation
import ReqdTestSupport
import Testing

/// Proxies as a user sets them: in the daemon's environment.
@Suite("reqd behind a proxy, end to end", .serialized)
struct ProxyBinaryTests {
    @Test("HTTP_PROXY in the daemon's environment carries its requests; a proxy URL it cannot use stops the start with 78")
    func environment() throws {
        let proxy = try TestConnectProxy()
        defer { proxy.shutdown() }
        let server = try TestHTTPServer { _ in TestHTTPServer.Reply(status: 200, body: "{}") }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.lowercased().hasSuffix("_proxy") }
        environment["HTTP_PROXY"] = "127.0.0.1:\(proxy.port)"
        let daemon = try DaemonProcess(directory: directory, environment: environment)
        defer { daemon.stop() }
        let outcome = try Binaries.client(["submit", server.url("/through"), "--wait"], socket: daemon.socket)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(proxy.tunnels.map(\.target) == ["127.0.0.1:\(server.port)"])
        #expect(server.records(path: "/through").count == 1)

        let refused = try Binaries.run(
            Binaries.reqd, ["--check-config"], environment: ["HTTPS_PROXY": "socks5://me:hunter2@proxy.example:1080"])
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("HTTPS_PROXY") && !refused.stderr.contains("hunter2"), "\(refused.stderr)")
    }
}
