import AsyncHTTPClient
import Foundation
import NIOCore
import ReqdCore
import Synchronization
import Testing
@testable import ReqdDaemon

@Suite("Which failures mean the network is unreachable")
struct UnreachableTests {
    @Test("no route and host unreachable hold; a refused connection or a timeout does not")
    func classification() {
        #expect(HTTPExecutor.isUnreachable(IOError(errnoCode: ENETUNREACH, reason: "connect")))
        #expect(HTTPExecutor.isUnreachable(IOError(errnoCode: EHOSTUNREACH, reason: "connect")))
        #expect(!HTTPExecutor.isUnreachable(IOError(errnoCode: ECONNREFUSED, reason: "connect")))
        #expect(!HTTPExecutor.isUnreachable(HTTPClientError.connectTimeout))
        #expect(!HTTPExecutor.isUnreachable(HTTPClientError.remoteConnectionClosed))
    }

    @Test("a real refused connection ends as an ordinary failure, not a hold")
    func refusedIsAFailure() throws {
        // A port nobody listens on: bind one, note it, close it.
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = bind(probe, $0, length) }
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(probe, $0, &length) }
        }
        let port = UInt16(bigEndian: address.sin_port)
        close(probe)

        let outcome = Mutex<HTTPOutcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        let executor = try HTTPExecutor(settings: HTTPSettings()) { _, _, result, _ in
            outcome.withLock { $0 = result }
            done.signal()
        }
        defer { executor.shutdown() }
        executor.execute(
            HTTPSend(job: JobID("rq_test"), attempt: 1, request: HTTPRequestSpec(method: "GET", url: "http://127.0.0.1:\(port)/"), parseJSON: false))
        #expect(done.wait(timeout: .now() + 10) == .success)
        let result = outcome.withLock { $0 }
        guard case .failure(let why) = result else {
            Issue.record("expected a failure, got \(String(describing: result))")
            return
        }
        #expect(why.contains("refused"))
    }
}
