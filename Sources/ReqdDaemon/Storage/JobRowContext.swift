import ReqdCore
import ReqdProtocol

/// What making records of job rows needs beside the rows themselves, read once before them: the
/// ended members of their groups, the attempt logs of their active polls, and how many rows there
/// are in all.
struct JobRowContext: Sendable {
    /// The ended members of the groups among the rows, by group.
    let members: [String: [(index: Int, record: MemberRecord)]]
    /// The attempt logs of the active polls among the rows, oldest first, by job.
    let attempts: [String: [AttemptInfo]]
    /// How many rows there are.
    let total: Int

    /// The record of a job row, with its attempt log and its group's ended members; nil for a row
    /// this reqd cannot read.
    func record(from row: some StoreRow) -> JobRecord? {
        guard var record = StoreCoding.record(from: row) else { return nil }
        if let log = attempts[record.id] { record.attempts = log }
        JobStore.apply(members, to: &record)
        return record
    }
}
