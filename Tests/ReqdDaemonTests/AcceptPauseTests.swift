import Glibc
import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import ReqdDaemon

@Suite("AcceptPause: accept failures are told once per run, never in a flood")
struct AcceptPauseTests {
    @Test("a run of failures is warned of once and its end told; runs within the next interval are counted into the next warning")
    func oncePerRun() throws {
        let messages = RecordingLogHandler.Messages()
        let logger = messages.logger()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            AcceptPause(logger: logger, what: "client connections", warnEvery: .milliseconds(300)))
        let outOfDescriptors = IOError(errnoCode: EMFILE, reason: "accept")
        func run() throws {
            channel.pipeline.fireErrorCaught(outOfDescriptors)
            channel.pipeline.fireErrorCaught(outOfDescriptors)
            try channel.writeInbound(1)
        }
        try run()
        try run()
        try run()
        // On this thread: an `EmbeddedChannel` is used only from the thread that made it, which
        // an `await` may leave.
        usleep(400_000)
        try run()

        let warning =
            "warning: out of file descriptors: accepting client connections pauses 1 s at a time until some close; "
            + "connected clients keep their service. Raise LimitNOFILE= or lower socket.max_connections"
        let again = "info: accepting client connections again"
        #expect(messages.all == [warning, again, warning, again])
        let warnings = messages.allMetadata(of: warning)
        #expect(warnings.first?["rlimit.nofile"] != nil)
        #expect(warnings.first?["accept.unwarned_runs"] == nil)
        #expect(warnings.last?["accept.unwarned_runs"] == "2")
        _ = try channel.finish()
    }
}
