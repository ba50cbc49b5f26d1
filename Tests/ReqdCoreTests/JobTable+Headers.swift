import ReqdProtocol
@testable import ReqdCore

extension JobTable {
    /// The headers of every job that satisfies `isIncluded`.
    func headers(where isIncluded: (JobHeader) -> Bool) -> [JobHeader] {
        var headers: [JobHeader] = []
        for slot in countdowns.values where isIncluded(slot.header) { headers.append(slot.header) }
        for slot in polls.values where isIncluded(slot.header) { headers.append(slot.header) }
        for slot in deliveries.values where isIncluded(slot.header) { headers.append(slot.header) }
        for slot in groups.values where isIncluded(slot.header) { headers.append(slot.header) }
        return headers
    }
}
