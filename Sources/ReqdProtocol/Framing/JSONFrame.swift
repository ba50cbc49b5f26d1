/// What one value's `encode(to:)` has opened so far, and how many members it has written.
final class JSONFrame {
    enum Kind { case none, keyed, unkeyed, single }
    @exclusivity(unchecked) var kind = Kind.none
    @exclusivity(unchecked) var count = 0

    /// Writes the separator before the next member.
    func separate(_ writer: JSONByteWriter) {
        if count > 0 { writer.bytes.append(UInt8(ascii: ",")) }
        count += 1
    }
}
