/// A table, or a machine of tables, that can give back capacity it no longer needs.
///
/// Swift's `Dictionary`, `Set` and `Array` keep their capacity when elements leave, so one burst
/// of a million jobs would leave every index sized for a million for good. The scheduler runs a
/// shrink pass in slices (`ShrinkPass`); each slice hands its `ShrinkBudget` down through the
/// machines to their tables.
protocol Shrinking {
    /// Shrinks what is sparse, as far as `budget` goes.
    ///
    /// - Returns: false when something left needs more than `budget` has: the pass comes back to
    ///   it with the next slice's budget.
    mutating func shrink(_ budget: inout ShrinkBudget) -> Bool
}
