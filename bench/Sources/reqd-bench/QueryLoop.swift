import Foundation
import Synchronization

/// A client that sends `list` and `status` requests one after another, each waiting for its
/// reply, over a window of wall time: in turn, the first page of 100 jobs, a list no job matches
/// (poll jobs), the 5 oldest expired jobs, and the daemon summary.
final class QueryLoop {
    /// What the loop's thread found, read once it has finished.
    private final class Outcome: Sendable {
        let state = Mutex<(times: [Double], failure: String?)>(([], nil))
    }

    private let thread: Thread
    private let result = Outcome()

    init(socket: String, from start: Double, until end: Double) throws {
        let connection = try BenchSocket(path: socket)
        let requests = [
            "{\"id\":1,\"op\":\"list\",\"limit\":100}", "{\"id\":2,\"op\":\"list\",\"kind\":\"poll\",\"limit\":5}",
            "{\"id\":3,\"op\":\"list\",\"state\":\"expired\",\"limit\":5}", "{\"id\":4,\"op\":\"status\"}",
        ].map(line)
        let result = self.result
        thread = Thread {
            while wallNow() < start { usleep(1_000) }
            var index = 0
            var times: [Double] = []
            while wallNow() < end, times.count < 1_000_000 {
                let sent = wallNow()
                do {
                    guard try connection.roundTrip(requests[index % requests.count]) else {
                        result.state.withLock { $0.failure = "a query was refused" }
                        return
                    }
                } catch {
                    result.state.withLock { $0.failure = "\(error)" }
                    return
                }
                times.append((wallNow() - sent) * 1_000)
                index += 1
            }
            result.state.withLock { $0.times = times }
        }
        thread.start()
    }

    /// Prints how many queries were answered and their round trips; throws when one failed.
    func report() throws {
        while !thread.isFinished { usleep(10_000) }
        let (times, failure) = result.state.withLock { $0 }
        if let failure { throw BenchError("queries: \(failure)") }
        let sorted = times.sorted()
        print(String(format: "QUERIES=%d\nQUERY_P50_MS=%.3f\nQUERY_P99_MS=%.3f", sorted.count, percentile(sorted, 0.5), percentile(sorted, 0.99)))
    }
}
