import Logging
@testable import ReqdDaemon
import ReqdProtocol
import Synchronization
import Testing

@Suite("Job events as log lines")
struct JobEventLogTests {
    private static func event(_ type: JobEventType, kind: JobKind = .countdown) -> JobEvent {
        JobEvent(
            type: type, job: "cd_7k2m9x4q1b", kind: kind, key: "order-42", scope: "checkout", owner: 1000,
            at: WallTime(nanosecondsSinceEpoch: 0))
    }

    @Test("a job's problems are notice; everything a healthy job does is debug, ticks trace")
    func levels() {
        for type in [JobEventType.failed, .timedOut, .dead] {
            #expect(JobEventLog.level(of: Self.event(type, kind: .request)) == .notice, "\(type)")
        }
        for type in [JobEventType.registered, .expired, .succeeded, .cancelled, .polled, .progress, .retrying, .member, .held] {
            #expect(JobEventLog.level(of: Self.event(type)) == .debug, "\(type)")
        }
        #expect(JobEventLog.level(of: Self.event(.tick)) == .trace)
        var completed = Self.event(.completed, kind: .group)
        completed.state = .succeeded
        #expect(JobEventLog.level(of: completed) == .debug)
        completed.state = .failed
        #expect(JobEventLog.level(of: completed) == .notice)
        var finished = Self.event(.completed, kind: .schedule)
        finished.state = .completed
        #expect(JobEventLog.level(of: finished) == .debug, "a schedule whose rule ran out ended well")
    }

    @Test("the log rate: a burst of ten seconds' worth goes out, the rest is held back and summed up once a second; errors always go out")
    func rateLimit() {
        let control = LogLevelControl(.debug, rate: 10)
        let start: UInt64 = 1_000_000_000_000
        var written = 0
        for index in 0..<150 where control.admit(.info, kind: index < 130 ? "countdown" : "daemon", now: start + UInt64(index)).write {
            written += 1
        }
        #expect(written == 100, "the burst")
        #expect(control.admit(.error, now: start + 200).write, "errors are never held back")
        #expect(!control.admit(.debug, now: start + 300).write)
        // Half a second later: 5 tokens back, no summary yet (the first held line was under a second ago).
        let half = control.admit(.info, now: start + 500_000_000)
        #expect(half.write && half.summary == nil)
        let later = control.admit(.info, now: start + 1_100_000_000)
        #expect(later.write)
        #expect(later.summary == "held back 51 log lines in 1.1 s over daemon.log_rate 10/s: 50 info (30 countdown, 20 daemon), 1 debug (1 daemon)")
        #expect(control.admit(.info, now: start + 1_200_000_000).summary == nil, "one summary per held-back run")
        control.rate = 0
        #expect((0..<1_000).allSatisfy { control.admit(.trace, now: start + 2_000_000_000 + UInt64($0)).write }, "0: no limit")
    }

    @Test("when no line follows a burst, the summary of what was held back is written anyway, a second after the first held line")
    func summaryWithoutAFollowingLine() async throws {
        let control = LogLevelControl(.debug, rate: 10)
        let written = Mutex<[String]>([])
        control.setSummaryWriter { summary in written.withLock { $0.append(summary) } }
        for _ in 0..<150 { _ = control.admit(.info, kind: "request") }
        for _ in 0..<300 where written.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        let summaries = written.withLock { $0 }
        #expect(summaries.count == 1)
        #expect(summaries.first?.hasPrefix("held back 50 log lines in ") == true)
        #expect(summaries.first?.hasSuffix(" s over daemon.log_rate 10/s: 50 info (50 request)") == true)
        #expect(control.dueSummary(now: .max) == nil, "taken once")
    }

    @Test("a registration names the kind and the time left, with the job's identity as fields")
    func registered() {
        var event = Self.event(.registered)
        event.remainingMs = 90_000
        let entry = JobEventLog.entry(for: event)
        #expect(entry.level == .debug)
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
        #expect(entry.level == .notice)
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
