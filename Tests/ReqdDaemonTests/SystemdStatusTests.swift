import ReqdCore
@testable import ReqdDaemon
import Testing

@Suite("systemd STATUS= coalescing")
struct SystemdStatusTests {
    private static func at(_ milliseconds: Int64) -> Instant { Instant(nanoseconds: milliseconds * 1_000_000) }

    @Test("a change goes out at once, the next within a second is held until its second is up")
    func coalescing() {
        var status = SystemdStatus()
        let one = SystemdStatus.text(activeJobs: 1, connections: 0, heldJobs: 0)
        let two = SystemdStatus.text(activeJobs: 2, connections: 1, heldJobs: 3)
        #expect(one == "1 active jobs, 0 connections")
        #expect(two == "2 active jobs, 1 connections, offline: 3 request jobs held")
        #expect(status.offer(one, at: Self.at(1_000)) == one)
        #expect(status.offer(one, at: Self.at(1_100)) == nil)
        #expect(status.deadline == nil)
        #expect(status.offer(two, at: Self.at(1_200)) == nil)
        #expect(status.deadline == Self.at(2_000))
        #expect(status.offer(two, at: Self.at(2_000)) == two)
        #expect(status.deadline == nil)
    }

    @Test("a held change that is undone before its second is up is never sent")
    func undone() {
        var status = SystemdStatus()
        #expect(status.offer("a", at: Self.at(0)) == "a")
        #expect(status.offer("b", at: Self.at(10)) == nil)
        #expect(status.deadline != nil)
        #expect(status.offer("a", at: Self.at(20)) == nil)
        #expect(status.deadline == nil)
    }
}
