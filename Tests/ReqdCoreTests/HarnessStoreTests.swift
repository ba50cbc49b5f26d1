import Foundation
import ReqdProtocol
import Testing
@testable import ReqdCore

@Suite("The harness's real store (REQD_CORE_STORE)")
struct HarnessStoreTests {
    @Test(
        "with REQD_CORE_STORE set, a durable job's row is written to that store and the harness reads it back from there",
        .enabled(if: HarnessStore.named != nil, "the in-memory run has no store"))
    func writesToTheStore() throws {
        var h = Harness()
        let store = try #require(h.store, "REQD_CORE_STORE names sqlite or postgres")
        let (id, _, _) = h.countdown(key: "k", seconds: 60)
        #expect(store.location.contains(HarnessStore.named == "sqlite" ? "reqd.sqlite3" : "cluster"))
        // Forget the harness's own list: what is read back can only come from the store.
        h.persisted = []
        #expect(h.storedRecords.map(\.id) == [id.rawValue])
        let (restarted, _) = h.restarted()
        #expect(restarted.scheduler.table.headers { $0.kind == .countdown }.count == 1)
    }
}
