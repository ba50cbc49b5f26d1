/// A set kept as a `ShardedDictionary`, that shrinks a shard as soon as a removal leaves it
/// sparse and the move is cheap.
///
/// For the job-id sets nested in other maps (a scope's active jobs, a connection's bound jobs,
/// an owner's waiting jobs): a shrink pass reaches them only while their map is small, and a
/// `Set` of a million ids would rehash all that are left in one go.
struct ShardedSet<Element: ShardKey>: Sequence, ExpressibleByArrayLiteral {
    private var members = ShardedDictionary<Element, Void>(shrinksOnRemoval: true)

    /// Creates an empty set.
    init() {}

    /// Creates a set of `elements`.
    init(arrayLiteral elements: Element...) {
        for element in elements { insert(element) }
    }

    /// The number of members.
    var count: Int { members.count }

    /// Whether there are no members.
    var isEmpty: Bool { members.isEmpty }

    /// Whether `element` is a member.
    func contains(_ element: Element) -> Bool { members[element] != nil }

    /// Adds `element`; false when it was a member already.
    @discardableResult
    mutating func insert(_ element: Element) -> (inserted: Bool, memberAfterInsert: Element) {
        (members.updateValue((), forKey: element) == nil, element)
    }

    /// Removes `element`; returns it when it was a member.
    @discardableResult
    mutating func remove(_ element: Element) -> Element? {
        members.removeValue(forKey: element) == nil ? nil : element
    }

    /// The members, shard by shard, in no particular order.
    func makeIterator() -> FlattenSequence<LazyMapSequence<[[Element: Void]], Dictionary<Element, Void>.Keys>>.Iterator {
        members.keys.makeIterator()
    }

    /// The slots the shards have room for; for tests.
    var capacity: Int { members.capacity }
}

extension ShardedSet: Sendable where Element: Sendable {}

extension ShardedSet: Shrinking {
    mutating func shrink(_ budget: inout ShrinkBudget) -> Bool { members.shrink(&budget) }
}
