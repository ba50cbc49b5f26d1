import Foundation
import ReqdProtocol
import Testing

@Suite("The daemon summary on the wire")
struct DaemonSummaryTests {
    @Test("job counts are written sorted by kind and by state, so two identical summaries are the same text")
    func sortedCounts() throws {
        let states = ["timed_out", "active", "succeeded", "dead", "expired", "failed", "cancelled"]
        let kinds = ["request", "countdown", "group", "poll"]
        let jobs = Dictionary(uniqueKeysWithValues: kinds.map { kind in
            (kind, Dictionary(uniqueKeysWithValues: states.enumerated().map { ($1, $0) }))
        })
        let summary = DaemonSummary(
            version: "0.1.0", protocolVersion: 1, pid: 7, startedAt: WallTime(nanosecondsSinceEpoch: 0), uptimeMs: 5,
            jobs: jobs, connections: 1)
        let text = String(decoding: try CompactJSONEncoder().encode(summary), as: UTF8.self)
        let counts = states.enumerated().sorted { $0.element < $1.element }.map { "\"\($0.element)\":\($0.offset)" }.joined(separator: ",")
        let expected = "\"jobs\":{" + kinds.sorted().map { "\"\($0)\":{\(counts)}" }.joined(separator: ",") + "}"
        #expect(text.contains(expected), "\(text)")
        let decoded = try JSONDecoder().decode(DaemonSummary.self, from: Data(text.utf8))
        #expect(decoded == summary)
    }
}
