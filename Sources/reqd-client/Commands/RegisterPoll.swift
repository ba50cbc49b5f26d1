import ArgumentParser
import Foundation
import ReqdProtocol

struct RegisterPoll: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register-poll",
        abstract: "Call a status URL until a condition on its answer holds, one request at a time.",
        discussion: """
            The next request starts at max(last start + --every, last answer): never two at once, no idle \
            gap after a slow answer. The condition compares JSON Pointers in the body, or the status:
              '/state == "done"'   '/progress >= 100'   'status == 200'   'status in 200..299'
              '/state == "done" && /errors == 0'
            With --wait the exit status is 0 when it succeeded, 2 failed, 3 cancelled, 4 timed out.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The status URL (http or https), after an optional method.", valueName: "METHOD URL"))
    var target: [String] = []

    @Option(help: "The poll interval, such as 3s or 500ms.")
    var every: String

    @Option(help: "The condition that ends the job with success, such as '/state == \"done\"'.")
    var until: String

    @Option(help: "A JSON Pointer to a number that reports progress, such as /progress.")
    var progress: String?

    @Option(help: "A total time limit, such as 10m; the job ends timed out when it passes.")
    var timeLimit: String?

    @Option(name: .customLong("timeout"), help: ArgumentHelp("The old name of --time-limit.", visibility: .hidden))
    var timeoutAlias: String?

    @Option(help: "Give up (timed out) after this many polls.")
    var maxPolls: Int?

    @Option(help: "Failed polls in a row that end the job (default: the daemon's poll.max_failures, 5 as shipped).")
    var maxFailures: Int?

    @Option(name: [.customShort("X"), .customLong("method")], help: "The HTTP method (default GET, or POST with --data).")
    var method: String?

    @OptionGroup var request: RequestOptions

    @Option(
        name: [.customLong("key"), .customLong("replace")],
        help: "A key: registering the same key again replaces your running job with that key, of any kind.")
    var key: String?

    @Option(help: "A scope for cancelling and watching jobs together.")
    var scope: String?

    @Flag(help: "Do not store the job; it is not restored after a restart.")
    var ephemeral = false

    @Flag(help: "Cancel the job when this client exits (needs --follow or --wait); such a job is never stored.")
    var bindConnection = false

    @Flag(help: "Stay and show progress live until the job ends.")
    var follow = false

    @Flag(help: "Block until the job ends; the exit status tells how it ended.")
    var wait = false

    @OptionGroup var output: QuietOption

    /// The total time limit, by either name.
    private var limit: String? { timeLimit ?? timeoutAlias }

    func validate() throws {
        try checkOutputFlags(quiet: output.quiet, follow: follow, wait: wait)
        _ = try MethodURL.one(target, option: "register-poll").with(method: method)
        if timeLimit != nil, timeoutAlias != nil { throw ValidationError("give --time-limit once") }
        _ = try DurationOption.milliseconds(every, option: "--every")
        if let limit { _ = try DurationOption.milliseconds(limit, option: "--time-limit") }
        if let maxPolls, maxPolls < 1 { throw ValidationError("--max-polls must be at least 1") }
        if let maxFailures, maxFailures < 1 { throw ValidationError("--max-failures must be at least 1") }
        if bindConnection, !follow, !wait {
            throw ValidationError("--bind-connection needs --follow or --wait: the job ends when this client exits")
        }
    }

    func run() throws {
        try runReporting {
            let body = try request.body()
            let target = try MethodURL.one(self.target, option: "register-poll").with(method: method)
            let spec = PollSpec(
                url: target.url, method: target.method(hasBody: !body.isEmpty), headers: request.headerLines, body: body.text,
                bodyBase64: body.base64,
                everyMs: try DurationOption.milliseconds(every, option: "--every"), until: until,
                progress: progress, timeoutMs: try limit.map { try DurationOption.milliseconds($0, option: "--time-limit") },
                maxPolls: maxPolls, maxFailures: maxFailures, key: key, scope: scope, ephemeral: ephemeral ? true : nil,
                bindConnection: bindConnection ? true : nil, follow: follow ? true : nil)
            let connection = try global.connect()
            let result: RegisterResult
            do {
                result = try connection.call(.registerPoll(spec), as: RegisterResult.self)
            } catch var failure as ClientFailure {
                if let column = failure.wire?.column, column >= 1 {
                    failure.message += "\n  \(until)\n  \(String(repeating: " ", count: column - 1))^"
                }
                throw failure
            }
            return try reportRegistration(
                result, on: connection, json: global.json, quiet: output.quiet, follow: follow, wait: wait
            ) {
                "registered \(result.job.id)  \(result.job.poll.map(EventRenderer.pollURL) ?? target.url)\(replacedNote(result))"
            }
        }
    }
}
