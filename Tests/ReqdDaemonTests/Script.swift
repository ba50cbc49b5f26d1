import Foundation
import ReqdDaemon
import ReqdTestSupport
import Synchronization
import Testing

/// Answers a path with each body of a script in turn, then repeats the last one.
final class Script: Sendable {
    private let replies: Mutex<[String: [TestHTTPServer.Reply]]>

    init(_ replies: [String: [TestHTTPServer.Reply]]) { self.replies = Mutex(replies) }

    func reply(path: String) -> TestHTTPServer.Reply {
        replies.withLock { replies in
            guard var list = replies[path], !list.isEmpty else { return TestHTTPServer.Reply(status: 404, body: "{}") }
            let next = list.count > 1 ? list.removeFirst() : list[0]
            replies[path] = list
            return next
        }
    }
}
