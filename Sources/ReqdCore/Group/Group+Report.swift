import ReqdProtocol

extension Group {
    /// The body of a group's `on_complete` report once it ended as `state`, as JSON of at most
    /// `limit` bytes (`http.max_request_bytes`) where the counts alone fit.
    ///
    /// 10,000 members with kept answers of 4 KB would make a body over 40 MB, held in memory and,
    /// for a durable group, written in one transaction. Over the limit, the members' answer bodies
    /// are left out first (`truncated`); then `errors` and `members` keep as many of their first
    /// entries as fit, errors first, and say how many they left out.
    static func reportBody(of job: Job, state: JobState, limit: Int) -> [UInt8]? {
        guard let group = job.group else { return nil }
        let view = GroupInfo(group)
        var report = GroupReport(
            job: job.id.rawValue, state: state, total: view.total, done: view.done, failures: view.failures,
            members: view.members, errors: view.errors)
        let whole = JSONBody.encode(report)
        guard whole.count > limit else { return whole }
        for index in report.members.indices where report.members[index].body != nil {
            report.members[index].body = nil
            report.members[index].truncated = true
        }
        let withoutBodies = JSONBody.encode(report)
        guard withoutBodies.count > limit else { return withoutBodies }
        let (members, errors) = (report.members, report.errors)
        // The counts at their largest, so that the entries chosen below cannot push the body over.
        report.members = []
        report.errors = []
        report.membersOmitted = members.count
        report.errorsOmitted = errors.count
        var room = limit - JSONBody.encode(report).count
        func keep<Entry: Encodable>(_ entries: [Entry]) -> Int {
            var kept = 0
            for entry in entries {
                // An entry and its comma.
                let size = JSONBody.encode(entry).count + 1
                guard size <= room else { break }
                room -= size
                kept += 1
            }
            return kept
        }
        let keptErrors = keep(errors)
        let keptMembers = keep(members)
        report.errors = Array(errors.prefix(keptErrors))
        report.members = Array(members.prefix(keptMembers))
        report.errorsOmitted = keptErrors < errors.count ? errors.count - keptErrors : nil
        report.membersOmitted = keptMembers < members.count ? members.count - keptMembers : nil
        return JSONBody.encode(report)
    }
}
