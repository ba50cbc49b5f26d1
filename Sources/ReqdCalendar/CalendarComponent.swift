/// One item of a calendar field's list: a value, a range `start..stop`, or a repetition
/// `start/step` (`start..stop/step`), as in systemd.time(7).
public struct CalendarComponent: Hashable, Comparable, Sendable {
    public var start: Int
    /// The last value of a range; -1 for none.
    public var stop: Int
    /// The step; 0 for a single value.
    public var step: Int

    public init(start: Int, stop: Int = -1, step: Int = 0) {
        self.start = start
        self.stop = stop
        self.step = step
    }

    public static func < (a: CalendarComponent, b: CalendarComponent) -> Bool {
        (a.start, a.stop, a.step) < (b.start, b.stop, b.step)
    }

    /// The smallest value at least `value` this item gives, with its start and stop taken as given.
    func firstValue(atLeast value: Int, start: Int, stop: Int) -> Int? {
        if start >= value { return start }
        guard step > 0 else { return nil }
        let steps = (value - start + step - 1) / step
        let candidate = start + step * steps
        return stop < 0 || candidate <= stop ? candidate : nil
    }
}
