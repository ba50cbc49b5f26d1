import ArgumentParser
import Foundation
import ReqdProtocol

struct Group: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run several requests together under a concurrency cap; report once, when all have ended.",
        discussion: """
            Members come from --request [METHOD] URL (each followed by its own -H and -d) and \
            from --file, a JSON array or NDJSON of request objects ({"method":"POST","url":"...","headers":[...],\
            "body":"...","max_attempts":3}). Members start in order as slots free. The group succeeds only \
            if every member does; otherwise it fails with every member's error. --time-limit ends it: members \
            still running are timed_out, those never started not_started.
            With --wait it prints a table of the members; the exit status is 0 when all succeeded, \
            2 failed, 3 cancelled.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(
        name: .customLong("request"), parsing: .upToNextOption,
        help: ArgumentHelp("A member: [METHOD] URL (GET, or POST with -d); repeat for more.", valueName: "METHOD URL"))
    var requests: [String] = []

    @Option(
        name: [.customShort("H"), .customLong("header")], help: "A header of the --request before it, 'Name: value'; repeat for more.")
    var headers: [String] = []

    @Option(name: [.customShort("d"), .customLong("data")], help: "The body of the --request before it, @FILE or @- for standard input.")
    var bodies: [String] = []

    @Option(help: "Members from a file: a JSON array, or one JSON object per line.")
    var file: String?

    @Option(help: "Members in flight at most (default 4).")
    var concurrency: Int?

    @Option(help: "A time limit for the whole group, such as 30s.")
    var timeLimit: String?

    @Option(name: .customLong("timeout"), help: ArgumentHelp("The old name of --time-limit.", visibility: .hidden))
    var timeoutAlias: String?

    @Option(help: "Attempts per member at most, for members that name none (default 1: no retry).")
    var maxAttempts: Int?

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp("Send the result (JSON) here when the group completes: [METHOD] URL, POST by default.", valueName: "METHOD URL"))
    var onComplete: [String] = []

    @Option(name: [.customLong("key"), .customLong("replace")], help: "A replace key: a newer job with this key cancels this one.")
    var key: String?

    @Option(help: "A scope for cancelling and watching jobs together.")
    var scope: String?

    @Flag(help: "Do not store the group; it is not restored after a restart.")
    var ephemeral = false

    @Flag(help: "Cancel the group when this client exits (implies --wait unless --follow); such a job is never stored.")
    var bindConnection = false

    @Flag(help: "Show members finishing live: n of N done, failures so far.")
    var follow = false

    @Flag(help: "Block until the group ends and print a table of its members.")
    var wait = false

    @OptionGroup var output: QuietOption

    /// The time limit, by either name.
    private var limit: String? { timeLimit ?? timeoutAlias }

    func validate() throws {
        try checkOutputFlags(quiet: output.quiet, follow: follow, wait: wait)
        if timeLimit != nil, timeoutAlias != nil { throw ValidationError("give --time-limit once") }
        if requests.isEmpty, file == nil { throw ValidationError("give at least one --request [METHOD] URL, or --file") }
        if let concurrency, concurrency < 1 { throw ValidationError("--concurrency must be at least 1") }
        if let maxAttempts, maxAttempts < 1 { throw ValidationError("--max-attempts must be at least 1") }
        if let limit { _ = try DurationOption.milliseconds(limit, option: "--time-limit") }
        try RequestOptions.check(headers: headers)
        let pairing = try Self.pairing(CommandLine.arguments)
        for words in pairing.requests { _ = try MethodURL.one(words, option: "--request") }
        guard pairing.headers.count == headers.count, pairing.bodies.count == bodies.count else {
            throw ValidationError("write each -H and -d apart, after the --request it is for")
        }
        guard Set(pairing.bodies).count == pairing.bodies.count else {
            throw ValidationError("give each --request at most one -d")
        }
        guard bodies.filter({ $0 == "@-" }).count <= 1 else {
            throw ValidationError("only one -d may read standard input (@-)")
        }
        if !onComplete.isEmpty { _ = try MethodURL.one(onComplete, option: "--on-complete") }
    }

    /// The words of each `--request`, and for each `-H`/`--header` and `-d`/`--data`, in order, the
    /// index of the `--request` before it.
    ///
    /// ArgumentParser keeps each option's values in order, but neither their order relative to
    /// each other nor which `--request` a word came with, so the command line is read once more.
    static func pairing(_ arguments: [String]) throws -> (requests: [[String]], headers: [Int], bodies: [Int]) {
        var requests: [[String]] = []
        var headers: [Int] = []
        var bodies: [Int] = []
        var collecting = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("-") else {
                if collecting { requests[requests.count - 1].append(argument) }
                index += 1
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            let name = parts.first ?? argument
            collecting = false
            switch name {
            case "--request":
                requests.append(parts.count == 2 ? [parts[1]] : [])
                collecting = true
            case "--header", "-H", "--data", "-d":
                guard !requests.isEmpty else {
                    throw ValidationError("\(name) belongs to a member: put it after the --request it is for")
                }
                if name == "--header" || name == "-H" { headers.append(requests.count - 1) } else { bodies.append(requests.count - 1) }
                if parts.count == 1 { index += 1 }
            default: break
            }
            index += 1
        }
        return (requests, headers, bodies)
    }

    /// The members: the `--request`s with their headers and bodies, then those of `--file`.
    func members() throws -> [RequestSpec] {
        let pairing = try Self.pairing(CommandLine.arguments)
        let targets = try pairing.requests.map { try MethodURL.one($0, option: "--request") }
        var members = targets.map { RequestSpec(method: $0.method, url: $0.url, maxAttempts: maxAttempts) }
        for (header, owner) in zip(headers, pairing.headers) where owner < members.count {
            members[owner].headers = (members[owner].headers ?? []) + [header]
        }
        for (body, owner) in zip(bodies, pairing.bodies) where owner < members.count {
            let payload = try RequestOptions.readBody(body)
            (members[owner].body, members[owner].bodyBase64) = (payload.text, payload.base64)
        }
        for (index, target) in targets.enumerated() {
            members[index].method = target.method(hasBody: members[index].body != nil || members[index].bodyBase64 != nil)
        }
        if let file {
            members += try Self.read(file).map { member in
                var member = member
                member.maxAttempts = member.maxAttempts ?? maxAttempts
                return member
            }
        }
        return members
    }

    /// Request objects from a JSON array or NDJSON file.
    static func read(_ path: String) throws -> [RequestSpec] {
        guard let handle = FileHandle(forReadingAtPath: path), let data = try? handle.readToEnd() ?? Data() else {
            throw ClientFailure(message: "cannot read --file '\(path)'", status: ExitStatus.usage)
        }
        let decoder = JSONDecoder()
        do {
            return try decoder.decode([RequestSpec].self, from: data)
        } catch let refused as WireError {
            throw ClientFailure(message: "--file '\(path)': \(refused.message)", status: ExitStatus.usage)
        } catch {
            // Not an array of requests: read as one request object a line.
        }
        var members: [RequestSpec] = []
        for (number, line) in String(decoding: data, as: UTF8.self).split(separator: "\n").enumerated()
        where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            do {
                members.append(try decoder.decode(RequestSpec.self, from: Data(line.utf8)))
            } catch let refused as WireError {
                throw ClientFailure(message: "--file '\(path)' line \(number + 1): \(refused.message)", status: ExitStatus.usage)
            } catch {
                throw ClientFailure(
                    message: "--file '\(path)' line \(number + 1) is not a request object (and the file is not a JSON array)",
                    status: ExitStatus.usage)
            }
        }
        return members
    }

    func run() throws {
        try runReporting {
            let spec = GroupSpec(
                members: try members(), concurrency: concurrency,
                timeoutMs: try limit.map { try DurationOption.milliseconds($0, option: "--time-limit") },
                onComplete: try reportRequest(onComplete, option: "--on-complete"),
                key: key, scope: scope, ephemeral: ephemeral ? true : nil, bindConnection: bindConnection ? true : nil,
                follow: follow ? true : nil)
            let connection = try global.connect()
            let result = try connection.call(.registerGroup(spec), as: RegisterResult.self)
            return try reportRegistration(
                result, on: connection, json: global.json, quiet: output.quiet, follow: follow, wait: wait || bindConnection,
                line: { "registered \(result.job.id)  \(spec.members.count) members, \(spec.concurrency ?? 4) at a time\(replacedNote(result))" },
                ended: { job in
                    if let group = job.group { Self.table(group) }
                    Output.line(EventRenderer.ending(job))
                })
        }
    }

    /// One row per member: its index, request, state, status, attempts and error.
    static func table(_ group: GroupInfo) {
        var rows = [["#", "REQUEST", "STATE", "STATUS", "ATTEMPTS", "ERROR"]]
        for member in group.members {
            rows.append([
                "\(member.index)", "\(member.method) \(member.url)", member.state.rawValue, member.status.map(String.init) ?? "-",
                "\(member.attempts)", member.state == .succeeded ? "" : member.error ?? "",
            ])
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            Output.line(zip(row, widths).map { $0.padding($1 + 2) }.joined().trimmingTrailingSpaces())
        }
    }
}
