extension RequestID: JSONWritable {
    /// Writes the id as it came: a number or a string.
    public func write(to writer: inout JSONWriter) {
        switch self {
        case .number(let value): writer.integer(value)
        case .string(let value): writer.string(value)
        }
    }
}
