import ReqdProtocol

/// Streams one job's events until its terminal event; returns the exit status for how it ended.
func followJob(_ connection: DaemonConnection, renderer: EventRenderer, initial: JobInfo?) throws -> Int32 {
    if let initial {
        guard initial.state == .active else {
            if !renderer.json { Output.line("\(initial.key ?? initial.id)  \(initial.state.rawValue)") }
            return ExitStatus.forState(initial.state)
        }
        renderer.renderInitial(initial)
    }
    while true {
        let line = try connection.readLine()
        let kind = try connection.decoder.decode(IncomingLineKind.self, from: .init(line))
        guard kind.isEvent else { continue }
        let event = try renderer.render(line)
        if let status = ExitStatus.forEvent(event) { return status }
    }
}
