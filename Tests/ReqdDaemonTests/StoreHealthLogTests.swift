import Logging
import Testing

@testable import ReqdDaemon

@Suite("StoreHealthLog: store write failures in the log, once per run")
struct StoreHealthLogTests {
    @Test("the first failed write is an error naming SQLite's error, the first success after a run of them a notice with its length; nothing else")
    func oncePerRun() {
        let messages = RecordingLogHandler.Messages()
        let logger = messages.logger()
        let health = StoreHealthLog(logger: logger)
        health.committed(failure: nil)
        for _ in 0..<5 { health.committed(failure: "database or disk is full") }
        health.committed(failure: nil)
        health.committed(failure: nil)
        health.committed(failure: "disk I/O error")
        let failed = "error: job store write failed; durable registrations are refused until it recovers"
        let recovered = "notice: job store writes recovered"
        #expect(messages.all == [failed, recovered, failed])
        #expect(messages.metadata(of: failed)?["store.error"] == "database or disk is full")
        #expect(messages.metadata(of: recovered)?["store.failed_writes"] == "5")
    }
}
