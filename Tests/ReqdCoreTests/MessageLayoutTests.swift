import ReqdProtocol
import Testing
@testable import ReqdCore

/// Every request passes through these types several times (decoded, handed to the scheduler's
/// turn, turned into effects, replies and outbound messages), and each hand-over copies them. A
/// job's full view is about a kilobyte, so the cases that carry one, or another large payload,
/// are `indirect`: BENCHMARKS.md ("Byte-level URLs and boxed messages") measured the pipelined
/// row 30% faster and the 50-client control row 47% faster for it.
@Suite("Message layout")
struct MessageLayoutTests {
    @Test("requests, replies, scheduler events and effects stay small inline; large payloads are boxed")
    func inlineSizes() {
        #expect(MemoryLayout<ReplyBody>.size == 8)
        #expect(MemoryLayout<RequestBody>.size == 8)
        #expect(MemoryLayout<Request>.size <= 40)
        #expect(MemoryLayout<Response>.size <= 64)
        #expect(MemoryLayout<SchedulerEvent>.size <= 112)
        #expect(MemoryLayout<SchedulerEffect>.size <= 72)
    }
}
