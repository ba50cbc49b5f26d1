import ReqdProtocol

extension JobRecord {
    /// Applies a change for this job to the record, as the store does; false for a deletion.
    public mutating func apply(_ change: StoreChange) -> Bool {
        switch change {
        case .insert(let record):
            self = record
        case .progress(_, let progress):
            apply(progress)
        case .pollCounters(_, let counters):
            detail.poll?.counters = counters
        case .groupMember(_, let index, let member):
            if let count = detail.group?.counters.members.count, index < count {
                detail.group?.counters.members[index] = member
            }
        case .attempt, .attemptAddress:
            // Attempts live apart from the job's row.
            break
        case .delete:
            return false
        }
        return true
    }
}
