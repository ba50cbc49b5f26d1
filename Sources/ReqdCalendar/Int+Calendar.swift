/// Integer helpers the calendar's arithmetic and formatting share.
extension Int {
    /// Zero-padded to `width` digits.
    func padded(_ width: Int) -> String {
        let digits = String(Swift.abs(self))
        let padding = String(repeating: "0", count: Swift.max(0, width - digits.count))
        return (self < 0 ? "-" : "") + padding + digits
    }

    func floorModulo(_ divisor: Int) -> Int {
        let remainder = self % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}

extension Int64 {
    /// The quotient rounded towards minus infinity, as a calendar needs for times before the epoch.
    public func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
