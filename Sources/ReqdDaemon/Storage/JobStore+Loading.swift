import Dispatch
import Foundation
import ReqdCore

/// Reading every row at start-up.
extension JobStore {
    /// Reads every job row, for restoring at start-up, in the order the database gives them.
    public func loadAll() throws(DaemonError) -> [JobRecord] {
        try onQueue { () throws(DaemonError) in
            var records: [JobRecord] = []
            try backend.claim(all: true) { rows, values throws(DaemonError) in
                try read(rows, values, chunkSize: .max) { chunk, total in
                    records.reserveCapacity(total)
                    records += chunk
                }
            }
            return records
        }
    }

    /// Claims the rows this daemon is to run and reads every row it holds in chunks of
    /// `chunkSize`, handing each chunk's records to `each` with the count of rows in all as soon
    /// as they are made, so the caller can restore one chunk while the next is read.
    ///
    /// The store's queue reads the rows and copies each chunk out (`StoreRowBatch`). Making records
    /// of a chunk whose rows hold JSON (reading it is most of a restart's work) runs on another
    /// thread, with as many chunks at a time as there are processors (at least 2). Once a chunk's
    /// rows hold little text (`handedRowBytes`), that chunk and every row after it are made
    /// records of on the store's queue as they are read. So `each` may be called on several
    /// threads at once and the chunks come in any order; it has been called for every chunk when
    /// this returns.
    public func load(chunkSize: Int, _ each: @escaping @Sendable ([JobRecord], _ total: Int) -> Void) throws(DaemonError) {
        let decoders = max(2, ProcessInfo.processInfo.activeProcessorCount)
        let decoding = DispatchGroup()
        let slots = DispatchSemaphore(value: decoders)
        defer { decoding.wait() }
        try onQueue { () throws(DaemonError) in
            try backend.claim(all: true) { rows, values throws(DaemonError) in
                let context = try self.context(of: rows, values)
                let hand = { @Sendable (batch: StoreRowBatch) in
                    var records: [JobRecord] = []
                    records.reserveCapacity(batch.count)
                    for index in 0..<batch.count {
                        if let record = context.record(from: batch[index]) { records.append(record) }
                    }
                    each(records, context.total)
                }
                // Set once a chunk's rows turn out to hold little text (countdowns: no JSON):
                // the rows are then made records of here as they are read, uncopied, which costs
                // less than handing them over; on 2 cores the extra threads only slowed the
                // scheduler's restore.
                var chunk: [JobRecord]?
                let decide = { (batch: StoreRowBatch) in
                    guard batch.textBytes >= batch.count * Self.handedRowBytes else {
                        chunk = []
                        chunk?.reserveCapacity(chunkSize)
                        return hand(batch)
                    }
                    slots.wait()
                    DispatchQueue.global().async(group: decoding) {
                        defer { slots.signal() }
                        hand(batch)
                    }
                }
                var batch = StoreRowBatch(width: StoreCoding.recordColumnCount, reserving: min(chunkSize, context.total))
                try backend.read(StoreCoding.jobsQuery(of: rows), values) { row in
                    if chunk != nil {
                        if let record = context.record(from: row) { chunk?.append(record) }
                        if let full = chunk, full.count >= chunkSize {
                            each(full, context.total)
                            chunk?.removeAll(keepingCapacity: true)
                        }
                        return
                    }
                    batch.append(row)
                    if batch.count >= chunkSize {
                        decide(batch)
                        batch = StoreRowBatch(width: StoreCoding.recordColumnCount, reserving: chunkSize)
                    }
                }
                if let chunk, !chunk.isEmpty { each(chunk, context.total) }
                if batch.count > 0 || context.total == 0 { decide(batch) }
            }
        }
    }

    /// The text a chunk's rows hold on average, in bytes, from which making their records is
    /// worth handing to another thread: a countdown's row holds about 30, a schedule's 650.
    static let handedRowBytes = 128

    /// Runs `body` on the store's queue and returns what it returns.
    private func onQueue<Value>(_ body: () throws(DaemonError) -> Value) throws(DaemonError) -> Value {
        let outcome = queue.sync { () -> Result<Value, DaemonError> in
            do throws(DaemonError) {
                return .success(try body())
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}
