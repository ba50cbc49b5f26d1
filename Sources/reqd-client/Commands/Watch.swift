import ArgumentParser
import ReqdProtocol

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a job's or a scope's events live: an updating line on a terminal, one line per event otherwise.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The job id.")
    var job: String?

    @Option(help: "Watch your active job with this key (a schedule's elapses make a clock for a shell loop).")
    var key: String?

    @Option(help: "Watch every job in this scope, until interrupted.")
    var scope: String?

    func validate() throws {
        guard [job != nil, key != nil, scope != nil].filter({ $0 }).count == 1 else {
            throw ValidationError("give exactly one of JOB_ID, --key or --scope")
        }
    }

    func run() throws {
        try runReporting {
            let connection = try global.connect()
            let renderer = EventRenderer(json: global.json)
            let result = try connection.call(.watch(JobSelector(job: job, key: key, scope: scope)), as: WatchResult.self)
            if let info = result.job {
                if global.json { Output.json(info) }
                return try followJob(connection, renderer: renderer, initial: info)
            }
            if !global.json { Output.line("watching scope \(scope ?? ""); Ctrl-C to stop") }
            while true {
                let line = try connection.readLine()
                if try connection.decoder.decode(IncomingLineKind.self, from: .init(line)).isEvent {
                    let event = try renderer.render(line)
                    if renderer.live, !event.type.isTerminal, !global.json { Output.raw("\n") }
                }
            }
        }
    }
}
