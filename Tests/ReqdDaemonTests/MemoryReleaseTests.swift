import Glibc
import Logging
import Testing

@testable import ReqdDaemon

@Suite("MemoryRelease: what the allocator keeps goes back to the system")
struct MemoryReleaseTests {
    @Test("64 MB freed between blocks still in use stays resident until the trim, which gives most of it back and logs the RSS before and after")
    func trimGivesFreedPagesBack() async throws {
        let messages = RecordingLogHandler.Messages()
        let logger = messages.logger()
        // 16,384 blocks of about a page, touched; every 16th stays, so no free run reaches the top
        // of a heap and glibc gives nothing back on its own.
        let blocks = (0..<16_384).map { _ -> UnsafeMutableRawPointer in
            let block = malloc(4_000)!
            memset(block, 1, 4_000)
            return block
        }
        var kept: [UnsafeMutableRawPointer] = []
        for (index, block) in blocks.enumerated() {
            if index % 16 == 0 { kept.append(block) } else { free(block) }
        }
        defer { kept.forEach { free($0) } }

        MemoryRelease(logger: logger).release()
        let line = "info: memory given back to the system"
        for _ in 0..<500 where messages.metadata(of: line) == nil { try await Task.sleep(for: .milliseconds(10)) }
        let metadata = try #require(messages.metadata(of: line))
        let before = try #require(metadata["memory.rss_before_mb"].flatMap { Int("\($0)") })
        let after = try #require(metadata["memory.rss_after_mb"].flatMap { Int("\($0)") })
        #expect(metadata["memory.trim_ms"] != nil)
        #expect(before - after >= 40, "of the 60 MB freed, \(before - after) MB went back")
    }
}
