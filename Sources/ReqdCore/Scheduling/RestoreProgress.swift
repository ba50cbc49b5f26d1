import ReqdProtocol

/// A restore from the store in progress, between its first chunk and its end.
struct RestoreProgress {
    /// Whether jobs were in memory before the restore began, so a row's id can already be taken.
    var checkCollisions: Bool
    /// Jobs read so far.
    var jobs = 0
    /// Ended jobs restored so far, with when each ended: they join retention at the end, in the
    /// order they ended.
    var ended: [(Job, WallTime)] = []
    /// Active rows that found a newer active row with their key: each is cancelled, superseded
    /// by the newer one, at the end, after the ended jobs have joined retention.
    var superseded: [(job: JobID, by: JobID)] = []
}
