import Foundation
import ReqdProtocol
import ReqdTestSupport
import Synchronization
import Testing
@testable import ReqdCore
@testable import ReqdDaemon

@Suite("Reading a store's rows at start")
struct StoreLoadingTests {
    @Test("rows copied out of SQLite and made records on other threads read as SQLite's own rows do: 2,000 rows: random rows of every kind, half with their changing columns written, then plain countdowns")
    func copiedRows() throws {
        var template = Array("/tmp/reqd-loading-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try JobStore(directory: directory) { _, failure in #expect(failure == nil) }
        defer { store.close() }
        var generator = StoredDetailGenerator(seed: 23)
        var batch = StoreBatch()
        var progressed = 0
        for index in 0..<2_000 {
            // Rows that hold JSON, made records of on other threads; then, from the first chunk of
            // countdowns with little text on, records made on the store's queue as they are read.
            let plain = index >= 1_360
            let kind = plain ? .countdown : JobKind.allCases[generator.random.below(JobKind.allCases.count)]
            let record = JobRecord(
                id: "\(kind.rawValue)_\(index)", owner: UInt32(generator.random.below(3)), kind: kind, state: .active,
                key: plain ? nil : generator.maybe { $0.string() }, scope: plain ? nil : generator.maybe { $0.string() },
                createdAt: generator.wallTime(), endedAt: nil, reason: nil, replacedBy: nil, deadline: generator.maybe { $0.wallTime() },
                tickNanos: generator.maybe { $0.integer() }, lateByNanos: nil, detail: !plain && generator.random.chance(90) ? generator.detail() : nil)
            batch.changes.append(.insert(record))
            guard !plain, generator.random.chance(50) else { continue }
            let counters: JobProgress.Counters =
                switch kind {
                case .countdown: .none
                case .poll: .poll(generator.poll().counters)
                case .request: .delivery(generator.deliveryCounters())
                case .group: .group(generator.group().counters)
                case .schedule: .schedule(generator.scheduleCounters())
                }
            let progress = JobProgress(
                state: generator.random.pick([.active, .completed, .failed, .cancelled]), endedAt: generator.maybe { $0.wallTime() },
                reason: nil, replacedBy: generator.maybe { $0.string() }, lateByNanos: generator.maybe { $0.integer() },
                result: generator.maybe { $0.result() }, error: generator.maybe { $0.string() }, spawned: generator.maybe { $0.string() },
                counters: counters)
            batch.changes.append(.progress(record.id, progress))
            progressed += 1
        }
        store.submit(batch)
        store.flush()
        let serial = try store.loadAll()
        // The store's queue runs on the thread that waits for it: chunks made there are made on
        // this thread, the others on other threads.
        let caller = pthread_self()
        let chunks = Mutex<[(records: [JobRecord], total: Int, here: Bool)]>([])
        try store.load(chunkSize: 64) { records, total in
            let here = pthread_equal(pthread_self(), caller) != 0
            chunks.withLock { $0.append((records, total, here)) }
        }
        let loaded = chunks.withLock { $0 }
        #expect(serial.count == 2_000 && progressed > 600)
        #expect(loaded.count == 32 && loaded.allSatisfy { $0.total == 2_000 })
        let handed = loaded.filter { !$0.here }.map(\.records), made = loaded.filter(\.here).map(\.records)
        #expect(handed.count >= 21 && handed.allSatisfy { $0.contains { $0.kind != .countdown || $0.key != nil } })
        #expect(made.count >= 9 && made.allSatisfy { $0.allSatisfy { $0.kind == .countdown && $0.key == nil } })
        let byID = { (records: [JobRecord]) in records.sorted { $0.id < $1.id } }
        let copied = byID(loaded.flatMap(\.records)), read = byID(serial)
        #expect(copied.count == read.count)
        let differing = zip(copied, read).filter { $0 != $1 }
        #expect(differing.isEmpty, "\(differing.count) records differ, the first: \(differing.prefix(1))")
    }
}
