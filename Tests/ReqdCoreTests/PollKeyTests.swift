import ReqdProtocol
import Testing
@testable import ReqdCore

@Suite("Poll jobs and keys")
struct PollKeyTests {
    @Test("a new poll with the same key replaces the running one and aborts its request")
    func replacementAborts() {
        var h = Harness()
        var first = pollSpec(ephemeral: true)
        first.key = "export"
        let (oldID, _) = h.poll(first)
        let (newID, effects) = h.poll(first)
        #expect(effects.aborts.map(\.0) == [oldID])
        #expect(effects.events(.cancelled).first?.replacedBy == newID.rawValue)
        #expect(effects.sends.map(\.job) == [newID])
        #expect(h.scheduler.job(oldID)?.state == .cancelled)
    }
}
