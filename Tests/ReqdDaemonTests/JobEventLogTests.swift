import Logging
@testable import ReqdDaemon
import ReqdProtocol
import Testing

@Suite("Job events as log lines")
struct JobEventLogTests {
    private static func event(_ type: JobEventType, kind: JobKind = .countdown) -> JobEvent {
        JobEvent(
            type: type, job: "cd_7k2m9x4q1b", kind: kind, key: "order-42", scope: "checkout", owner: 1000,
            at: WallTime(nanosecondsSinceEpoch: 0))
    }

    @Test("lifecycle events are info, steps debug, ticks trace")
    func levels() {
        #expect(JobEventLog.level(of: .registered) == .info)
        #expect(JobEventLog.level(of: .expired) == .info)
        #expect(JobEventLog.level(of: .dead) == .info)
        #expect(JobEventLog.level(of: .completed) == .info)
        #expect(JobEventLog.level(of: .polled) == .debug)
        #expect(JobEventLog.level(of: .member) == .debug)
        #expect(JobEventLog.level(of: .held) == .debug)
        #expect(JobEventLog.level(of: .tick) == .trace)
    }

    @Test("a registration names the kind and the time left, with the job's identity as fields")
    func registered() {
        var event = Self.event(.registered)
        event.remainingMs = 90_000
        let entry = JobEventLog.entry(for: event)
        #expect(entry.level == .info)
        #expect(entry.message == "countdown registered (1m30s)")
        #expect(entry.metadata == [
            "job.id": "cd_7k2m9x4q1b", "job.kind": "countdown", "job.owner": "1000", "scope": "checkout", "job.key": "order-42",
        ])
    }

    @Test("an expiry says how late it was; a cancellation why and by what")
    func expiredAndCancelled() {
        var expired = Self.event(.expired)
        expired.lateByMs = 1.5
        let expiry = JobEventLog.entry(for: expired)
        #expect(expiry.message == "countdown expired")
        #expect(expiry.metadata["job.late_by_ms"] == "1.5")
        #expect(expiry.metadata["job.spawned"] == nil)

        var cancelled = Self.event(.cancelled)
        cancelled.reason = .superseded
        cancelled.replacedBy = "cd_other"
        let cancellation = JobEventLog.entry(for: cancelled)
        #expect(cancellation.message == "countdown cancelled: superseded")
        #expect(cancellation.metadata["job.replaced_by"] == "cd_other")
    }

    @Test("a request job's end carries its attempt, status and error")
    func ended() {
        var failed = Self.event(.failed, kind: .request)
        failed.attempt = 3
        failed.status = 503
        failed.error = "out of attempts"
        let entry = JobEventLog.entry(for: failed)
        #expect(entry.level == .info)
        #expect(entry.message == "request failed: out of attempts")
        #expect(entry.metadata["job.attempt"] == "3")
        #expect(entry.metadata["http.status"] == "503")
        #expect(entry.metadata["job.polls"] == nil)
    }

    @Test("a group's completion counts what did not succeed")
    func completed() {
        var event = Self.event(.completed, kind: .group)
        event.state = .failed
        event.failures = 2
        event.total = 5
        let entry = JobEventLog.entry(for: event)
        #expect(entry.message == "group completed: failed, 2 of 5 did not succeed")
        #expect(entry.metadata["group.failures"] == "2")
    }
}
