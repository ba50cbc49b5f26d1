import ReqdProtocol
import Testing
@testable import ReqdCore

@Suite("KeyIndex: each key's holder and jobs in one table")
struct KeyIndexTests {
    /// What the index must say of one key: its jobs, oldest first, and its holder.
    private struct Model: Equatable {
        var entries: [ListIndex.Entry] = []
        var holder: JobID?
    }

    private static func entry(_ index: Int) -> ListIndex.Entry {
        ListIndex.Entry(createdAt: Int64(index % 97), id: JobID("cd_\(index)"))
    }

    @Test("100,000 random files, forgets, releases, assignments and claims over 40 keys agree with a plain model at every step")
    func likeAModel() {
        var index = KeyIndex()
        var model: [JobTable.OwnedKey: Model] = [:]
        let keys = (0..<40).map { JobTable.OwnedKey(owner: UInt32(1000 + $0 / 20), key: "k\($0 % 20)") }
        let seed = UInt64.random(in: 0...UInt64.max)
        print("KeyIndexTests.likeAModel seed \(seed)")
        var random = RandomSource(seed: seed)
        var next = 0
        for _ in 0..<100_000 {
            let key = keys.randomElement(using: &random)!
            var expected = model[key] ?? Model()
            let roll = Int.random(in: 0..<10, using: &random)
            switch roll {
            case 0..<3:
                // A new job with the key; it holds it when it is active and new, not when restored ended.
                let new = Self.entry(next)
                next += 1
                let holds = roll < 2
                index.add(new, to: key, holds: holds)
                expected.entries.append(new)
                expected.entries.sort()
                if holds { expected.holder = new.id }
            case 3 where !expected.entries.isEmpty:
                // Filing a job filed already changes nothing but, with `holds`, the holder.
                let again = expected.entries.randomElement(using: &random)!
                index.add(again, to: key, holds: true)
                expected.holder = again.id
            case 4..<6 where !expected.entries.isEmpty:
                let gone = expected.entries.randomElement(using: &random)!
                index.remove(gone, from: key)
                expected.entries.removeAll { $0 == gone }
                if expected.holder == gone.id { expected.holder = nil }
            case 6:
                // Releasing by the holder frees the key; by any other job, nothing.
                let by = Bool.random(using: &random) ? expected.holder ?? JobID("cd_x") : expected.entries.randomElement(using: &random)?.id ?? JobID("cd_y")
                index.release(key, heldBy: by)
                if expected.holder == by { expected.holder = nil }
            case 7:
                // An assignment may name a job not filed yet, as a restore's does.
                let to = Bool.random(using: &random) ? JobID("cd_unfiled\(next)") : expected.entries.randomElement(using: &random)?.id ?? JobID("cd_z")
                index.assign(key, to: to)
                expected.holder = to
            default:
                let claimant = Bool.random(using: &random) ? Self.entry(next) : expected.entries.randomElement(using: &random) ?? Self.entry(next)
                if claimant.id == Self.entry(next).id { next += 1 }
                let other = index.claim(key, for: claimant)
                if let holder = expected.holder, holder != claimant.id {
                    #expect(other == holder)
                } else {
                    #expect(other == nil)
                    expected.holder = claimant.id
                    if !expected.entries.contains(claimant) {
                        expected.entries.append(claimant)
                        expected.entries.sort()
                    }
                }
            }
            model[key] = expected.entries.isEmpty && expected.holder == nil ? nil : expected
            #expect(index.holder(of: key) == expected.holder)
            #expect(index.entries(of: key) ?? [] == expected.entries)
        }
        #expect(index.count == model.count)
        for key in keys {
            #expect(index.holder(of: key) == model[key]?.holder)
            #expect(index.entries(of: key) ?? [] == model[key]?.entries ?? [])
        }
    }

    @Test("a copy of the index keeps its own jobs and holder when the other changes a key of several jobs")
    func copiesStayApart() {
        var index = KeyIndex()
        let key = JobTable.OwnedKey(owner: 1000, key: "k")
        for n in 1...3 { index.add(Self.entry(n), to: key, holds: true) }
        var copy = index
        copy.add(Self.entry(4), to: key, holds: true)
        copy.remove(Self.entry(1), from: key)
        index.release(key, heldBy: JobID("cd_3"))
        #expect(index.entries(of: key) == [1, 2, 3].map(Self.entry))
        #expect(index.holder(of: key) == nil)
        #expect(copy.entries(of: key) == [2, 3, 4].map(Self.entry))
        #expect(copy.holder(of: key) == JobID("cd_4"))
    }

    @Test("a key with one job, holding it or not, keeps that job inline, and a key whose jobs are all forgotten goes")
    func oneJobInline() {
        var index = KeyIndex()
        let key = JobTable.OwnedKey(owner: 1000, key: "k")
        index.add(Self.entry(1), to: key, holds: true)
        index.release(key, heldBy: JobID("cd_1"))
        index.add(Self.entry(2), to: key, holds: true)
        index.remove(Self.entry(1), from: key)
        #expect(index.holder(of: key) == JobID("cd_2"))
        #expect(index.entries(of: key) == [Self.entry(2)])
        #expect(index.isInline(key))
        index.remove(Self.entry(2), from: key)
        #expect(index.count == 0)
        #expect(index.entries(of: key) == nil)
    }
}
