/// One job in its kind's table: its header and its state machine side by side, so the slot is
/// sized for its kind and one lookup finds both.
struct JobSlot<Machine: Sendable>: Sendable {
    var header: JobHeader
    var machine: Machine

    /// Runs `body` on the header in place.
    mutating func withHeader<R>(_ body: (inout JobHeader) -> R) -> R { body(&header) }

    /// Runs `body` on the machine in place while the job is active; nil once it has ended.
    mutating func ifActive<R>(_ body: (inout Machine) -> R) -> R? {
        header.isActive ? body(&machine) : nil
    }
}
