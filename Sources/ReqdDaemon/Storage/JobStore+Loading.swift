import Dispatch
import Foundation
import ReqdCore

/// Reading every row at start-up.
extension JobStore {
    /// Claims and reads every job row on the store's queue alone, in the order the database gives
    /// them, in one array: what `load` hands over in chunks from other threads.
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
    /// thread, with as many chunks at a time as there are processors (at least 2). When a chunk's
    /// rows hold little text (`handedRowBytes`), the rows of the next `inlineChunks` chunks are
    /// made records of on the store's queue as they are read, uncopied, before a chunk is looked
    /// at again. So `each` may be called on several threads at once and the chunks come in any
    /// order; every call has returned before the claim ends and this returns, and `each` must not
    /// call into the store.
    public func load(chunkSize: Int, _ each: @escaping @Sendable ([JobRecord], _ total: Int) -> Void) throws(DaemonError) {
        let decoders = DispatchQueue(label: "reqd.store.records", attributes: .concurrent)
        let decoding = DispatchGroup()
        let slots = DispatchSemaphore(value: max(2, ProcessInfo.processInfo.activeProcessorCount))
        try onQueue { () throws(DaemonError) in
            try backend.claim(all: true) { rows, values throws(DaemonError) in
                // Every chunk is handed over within the claim, as the rows are on the store's
                // queue: nothing the queue sends after it overtakes them.
                defer { decoding.wait() }
                let context = try self.context(of: rows, values)
                let size = min(chunkSize, context.total)
                let hand = { @Sendable (batch: StoreRowBatch) in
                    var records: [JobRecord] = []
                    records.reserveCapacity(batch.count)
                    for index in 0..<batch.count {
                        if let record = context.record(from: batch[index]) { records.append(record) }
                    }
                    each(records, context.total)
                }
                // Rows with little text (countdowns: no JSON) cost less to make records of here,
                // uncopied, than to hand over; on 2 cores the extra threads only slowed the
                // scheduler's restore.
                var inlineRows = 0
                var chunk: [JobRecord] = []
                let decide = { (batch: StoreRowBatch) in
                    guard batch.textBytes >= batch.count * Self.handedRowBytes else {
                        inlineRows = Self.inlineChunks * size
                        if chunk.capacity < size { chunk.reserveCapacity(size) }
                        return hand(batch)
                    }
                    slots.wait()
                    decoders.async(group: decoding) {
                        defer { slots.signal() }
                        hand(batch)
                    }
                }
                var batch = StoreRowBatch(width: StoreCoding.recordColumnCount, reserving: size)
                try backend.read(StoreCoding.jobsQuery(of: rows), values) { row in
                    if inlineRows > 0 {
                        inlineRows -= 1
                        if let record = context.record(from: row) { chunk.append(record) }
                        if chunk.count >= chunkSize || inlineRows == 0, !chunk.isEmpty {
                            each(chunk, context.total)
                            chunk.removeAll(keepingCapacity: true)
                        }
                        return
                    }
                    batch.append(row)
                    if batch.count >= chunkSize {
                        decide(batch)
                        batch = StoreRowBatch(width: StoreCoding.recordColumnCount, reserving: size)
                    }
                }
                if !chunk.isEmpty { each(chunk, context.total) }
                if batch.count > 0 || context.total == 0 { decide(batch) }
            }
        }
    }

    /// The text a chunk's rows hold on average, in bytes, from which making their records is
    /// worth handing to another thread: a countdown's row holds about 30, a schedule's 650.
    static let handedRowBytes = 128

    /// How many chunks' rows are made records of on the store's queue after a chunk with little
    /// text, before the next chunk is copied out and looked at: a store whose oldest rows are
    /// countdowns and whose newer rows hold JSON hands those over, and a store of countdowns
    /// copies one chunk in 9.
    static let inlineChunks = 8

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
