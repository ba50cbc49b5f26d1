/// A wire value that writes its own JSON text with a `JSONWriter`.
public protocol JSONWritable {
    /// Writes the value at the writer's position.
    func write(to writer: inout JSONWriter)
}
