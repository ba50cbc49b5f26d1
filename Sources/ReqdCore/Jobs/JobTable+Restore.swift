/// Bulk loading at start-up, where a million jobs in a row make every hash lookup count.
extension JobTable {
    /// Makes room for `jobs` more jobs, `keys` of them with keys.
    mutating func reserve(jobs: Int, keys: Int) {
        headers.reserveCapacity(headers.count + jobs)
        activeByKey.reserveCapacity(activeByKey.count + keys)
    }

    /// Claims `key` for a restored active job, in one lookup when it is free, as it almost always
    /// is; returns the other active job that held it, which the caller must end first.
    mutating func claimKey(_ key: String, owner: UInt32, for id: JobID) -> JobID? {
        let holder = activeByKey.claim(OwnedKey(owner: owner, key: key), default: id)
        return holder == id ? nil : holder
    }

    /// Gives `key` to a restored job once its previous holder has ended.
    mutating func assignKey(_ key: String, owner: UInt32, to id: JobID) {
        activeByKey[OwnedKey(owner: owner, key: key)] = id
    }

    /// Adds a restored job, active (its key already claimed) or ended, counted through `tally`.
    mutating func insertRestored(_ header: JobHeader, tally: inout CountTally) {
        headers[header.id] = header
        if header.state == .active, let scope = header.scope { activeByScope[scope, default: []].insert(header.id) }
        tally.add(header, to: &self)
    }
}
