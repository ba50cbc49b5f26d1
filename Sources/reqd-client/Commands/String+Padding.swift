extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: Swift.max(1, width - count)) }

    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
