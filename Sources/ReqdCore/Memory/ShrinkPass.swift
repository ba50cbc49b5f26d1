/// Where the scheduler's shrink pass stands: whether one is due, and how far the one in progress
/// has come.
///
/// A pass looks at the tables whose size follows the number of jobs (docs/ARCHITECTURE.md,
/// "Memory"), in slices of one `ShrinkBudget` each, one slice per firing of the `.shrink` timer,
/// so deadlines and requests run between slices. It begins a second after enough jobs have ended
/// or been forgotten or connections closed, so a burst of cancels settles first, and waits while
/// ended jobs are still being forgotten in shares. A data machine: the scheduler decides what a
/// step does.
struct ShrinkPass: Sendable {
    /// The parts of the scheduler a pass walks, in order.
    enum Part: Int, CaseIterable, Sendable {
        case jobs, timers, dedupe, subscriptions, commits, ledger, network, catchup
    }

    /// Jobs ended or forgotten, or connections closed, since the last pass began that make
    /// another worth it.
    static let removalsPerPass = 4_096
    /// Removals between the arming of a pass and the end of its walk that make giving memory back
    /// worth a call even when no table shrank: a burst's headers, strings and bodies went back to
    /// the allocator. A steady churn spreads over many passes and stays under it.
    static let removalsPerRelease = 65_536
    /// Capacity let go of in a pass that makes giving memory back worth a call: less is not worth
    /// the trim's 20–40 ms of holding the allocator's locks.
    static let releaseBytes = 1 << 20
    /// How long after the removals a pass begins: a burst of cancels or forgets settles first.
    static let settleNanos: Int64 = 1_000_000_000
    /// The pause between slices, in which other work runs.
    static let sliceGapNanos: Int64 = 1_000_000
    /// A slice starts only when no deadline falls within this long: a slice takes about a
    /// millisecond and at most about two, so that a deadline does not wait behind one…
    static let sliceRoomNanos: Int64 = 2_000_000
    /// …or once it has waited this long for such a moment, so that deadlines closer together
    /// than a slice do not hold a pass back for good: it then takes one slice in this long.
    static let sliceWaitNanos: Int64 = 25_000_000
    /// How long a pass waits while ended jobs are still being forgotten in shares: the tables are
    /// not sparse yet, and the forgetting has the turns.
    static let forgettingWaitNanos: Int64 = 100_000_000
    /// `malloc_trim` holds each heap's lock while it walks it (25–60 ms after a million jobs), and
    /// an allocation from that heap waits for it: it runs when no deadline falls within this long…
    static let quietNanos: Int64 = 50_000_000
    /// …or at the latest this long after the pass ended.
    static let releaseWaitNanos: Int64 = 10_000_000_000

    /// True from the arming of the `.shrink` timer to the end of the pass and its release.
    private(set) var isScheduled = false
    /// The pass has ended and memory should go back to the system at a quiet moment, at the
    /// latest at this instant.
    private(set) var releaseBy: Instant?
    /// The part in progress and the step within it.
    var part = Part.jobs
    var step = 0
    /// Since when the next slice has waited for room between deadlines.
    private var waitingSince: Instant?
    private var removals = 0
    private var freedBytes = 0
    /// Slices run and tables shrunk since the scheduler began, and the work of the last slice;
    /// for tests.
    private(set) var slicesRun = 0
    private(set) var tablesShrunk = 0
    private(set) var lastSliceWork = 0

    /// A job ended or was forgotten, or a connection closed.
    mutating func removed() { removals += 1 }

    /// Whether a pass should be armed now: enough has gone.
    var isDue: Bool { !isScheduled && removals >= Self.removalsPerPass }

    /// A pass was armed.
    mutating func scheduled() {
        isScheduled = true
        removals = 0
        part = .jobs
        step = 0
        freedBytes = 0
    }

    /// Moves on to the next part; false when the pass has walked them all.
    mutating func advance() -> Bool {
        step = 0
        guard let next = Part(rawValue: part.rawValue + 1) else { return false }
        part = next
        return true
    }

    /// Until when the next slice waits for room, the nearest deadline being at `next`: just after
    /// that deadline, whose turn comes first, while it falls within `sliceRoomNanos`, for
    /// `sliceWaitNanos` at most; nil when the slice runs now.
    mutating func roomWait(before next: Instant?, at now: Instant) -> Instant? {
        guard let next, next < now.advanced(by: Self.sliceRoomNanos) else { return nil }
        if let since = waitingSince {
            guard now < since.advanced(by: Self.sliceWaitNanos) else { return nil }
        } else {
            waitingSince = now
        }
        return max(next, now).advanced(by: 1)
    }

    /// The slice was put off while ended jobs are forgotten: its wait for room starts again when
    /// it comes back.
    mutating func waitsForForgetting() { waitingSince = nil }

    /// A slice ended with `budget` left.
    mutating func sliceEnded(_ budget: ShrinkBudget) {
        waitingSince = nil
        slicesRun += 1
        freedBytes += budget.freedBytes
        tablesShrunk += budget.shrunk
        lastSliceWork = ShrinkBudget.slice - budget.left
    }

    /// Ends the walk over the parts; a release follows when it let go of `releaseBytes` or more,
    /// or enough jobs were forgotten (`releaseBy`), else the pass is over.
    mutating func walked(at now: Instant) {
        if freedBytes >= Self.releaseBytes || removals >= Self.removalsPerRelease {
            releaseBy = now.advanced(by: Self.releaseWaitNanos)
        } else {
            isScheduled = false
        }
    }

    /// A restore of `jobs` jobs ended; true when memory should go back (`releaseBy`) and the
    /// `.shrink` timer be armed for it.
    ///
    /// Making the jobs of the rows allocated and freed a great deal on the threads that read them
    /// (the rows' copies, their JSON, the records), which their allocator heaps keep: after a
    /// million schedules, about 60 MB that one trim gives back. So a restore of as many jobs as make a
    /// pass's end release memory does the same, unless a pass is under way.
    mutating func restored(_ jobs: Int, at now: Instant) -> Bool {
        guard !isScheduled, jobs >= Self.removalsPerRelease else { return false }
        isScheduled = true
        releaseBy = now.advanced(by: Self.releaseWaitNanos)
        return true
    }

    /// The memory went back: the pass is over.
    mutating func released() {
        releaseBy = nil
        isScheduled = false
    }
}
