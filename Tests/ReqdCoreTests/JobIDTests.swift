import ReqdProtocol
import Testing

@testable import ReqdCore

@Suite("Job ids")
struct JobIDTests {
    private let millisecond: Int64 = 1_000_000

    @Test("an id is its kind's prefix, four characters of the millisecond it was made and eight random ones: 15 bytes, inside a String")
    func form() {
        var random = RandomSource(seed: 1)
        for kind in [JobKind.countdown, .poll, .request, .group, .schedule] {
            let id = random.jobID(kind: kind, at: WallTime(nanosecondsSinceEpoch: 1_800_000_000_123 * millisecond))
            #expect(id.rawValue.utf8.count == 15)
            #expect(id.kind == kind)
            #expect(id.rawValue.dropFirst(3).allSatisfy { "0123456789abcdefghjkmnpqrstvwxyz".contains($0) })
        }
    }

    @Test("ids made in one millisecond share their first characters and differ in the rest; later ones sort after them within the wheel")
    func order() {
        var random = RandomSource(seed: 2)
        let start: Int64 = 1_800_000_000_000 * millisecond
        let together = (0..<10_000).map { _ in random.jobID(kind: .countdown, at: WallTime(nanosecondsSinceEpoch: start)).rawValue }
        #expect(Set(together).count == together.count)
        #expect(Set(together.map { $0.prefix(7) }).count == 1)
        // Within 2^20 ms of each other, as long as the wheel does not turn between them.
        let wheelStart = start / millisecond / (1 << 20) * (1 << 20) * millisecond
        var previous = random.jobID(kind: .countdown, at: WallTime(nanosecondsSinceEpoch: wheelStart))
        for step: Int64 in [1, 2, 999, 60_000, (1 << 20) - 1] {
            let later = random.jobID(kind: .countdown, at: WallTime(nanosecondsSinceEpoch: wheelStart + step * millisecond))
            #expect(later > previous, "\(step) ms in: \(later) after \(previous)")
            previous = later
        }
    }

    @Test("a registration's id carries the scheduler's clock: a job made milliseconds later sorts after the one before")
    func registrations() {
        var h = Harness()
        let first = h.countdown(key: nil, seconds: 60).id
        h.advance(3 * millisecond)
        let second = h.countdown(key: nil, seconds: 60).id
        #expect(first.rawValue.prefix(7) != second.rawValue.prefix(7))
        #expect(first < second)
    }
}
