import ArgumentParser
import Foundation
import ReqdProtocol

struct Submit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send one request, retried on transport errors, 5xx and 429, with request hygiene.",
        discussion: """
            An identical request (same method, URL, body and --dedupe-header values) from you within the \
            dedupe window returns the job the first one made: the target sees one request. The window \
            counts from the first registration (default 3s; --dedupe-window 0 turns it off).
            --replace KEY cancels your running job with that key, of any kind, and aborts its request \
            on the wire. --bind-connection ties the job to this client: it is cancelled when the client exits.
            Transport errors, timeouts, 408, 425, 429 and 5xx are retried (--retry-on changes the statuses), \
            honouring Retry-After; every attempt carries the same Idempotency-Key (the job id) unless you set one. \
            Give METHOD URL first: --on-success and --on-failure take the words after them up to the next option.
            With --wait it prints the answer; the exit status is 0 when it succeeded (an answer below 400), \
            2 failed (an answer it does not retry), 3 cancelled, 5 dead (its attempts ran out; see list --state dead, retry).
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The request: [METHOD] URL (http or https); GET, or POST with --data.", valueName: "METHOD URL"))
    var target: [String] = []

    @Option(name: [.customShort("X"), .customLong("method")], help: "The HTTP method, as curl's -X; or give it before the URL.")
    var method: String?

    @OptionGroup var request: RequestOptions

    @OptionGroup(title: "Retries") var retries: RetryOptions

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp("Report success here (the outcome as JSON): [METHOD] URL, POST by default.", valueName: "METHOD URL"))
    var onSuccess: [String] = []

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp("Report failure or dead-lettering here: [METHOD] URL, POST by default.", valueName: "METHOD URL"))
    var onFailure: [String] = []

    @Option(help: "How long an identical request returns this job, such as 3s; 0 turns dedupe off.")
    var dedupeWindow: String?

    @Option(name: .customLong("dedupe-header"), help: "A header whose value counts in the dedupe fingerprint; repeat for more.")
    var dedupeHeaders: [String] = []

    @Option(help: "A replace key: a newer job with this key cancels this one, of any kind.")
    var replace: String?

    @Option(help: "A scope for cancelling and watching jobs together.")
    var scope: String?

    @Flag(help: "Do not store the job; it is not restored after a restart.")
    var ephemeral = false

    @Flag(help: "Cancel the job when this client exits (implies --wait unless --follow); such a job is never stored.")
    var bindConnection = false

    @Flag(help: "Stay and show the attempts live until the job ends.")
    var follow = false

    @Flag(help: "Block until the job ends and print the answer; the exit status tells how it ended.")
    var wait = false

    @OptionGroup var output: QuietOption

    func validate() throws {
        try checkOutputFlags(quiet: output.quiet, follow: follow, wait: wait)
        _ = try MethodURL.one(target, option: "submit").with(method: method)
        if !onSuccess.isEmpty { _ = try MethodURL.one(onSuccess, option: "--on-success") }
        if !onFailure.isEmpty { _ = try MethodURL.one(onFailure, option: "--on-failure") }
        if let dedupeWindow { _ = try DurationOption.milliseconds(dedupeWindow, option: "--dedupe-window", zero: true) }
    }

    func run() throws {
        try runReporting {
            let target = try MethodURL.one(self.target, option: "submit").with(method: method)
            let body = try request.body()
            var sent = RequestSpec(
                method: target.method(hasBody: !body.isEmpty), url: target.url, headers: request.headerLines, body: body.text,
                bodyBase64: body.base64)
            retries.apply(to: &sent)
            let spec = SubmitSpec(
                request: sent,
                dedupeWindowMs: try dedupeWindow.map { try DurationOption.milliseconds($0, option: "--dedupe-window", zero: true) },
                dedupeHeaders: dedupeHeaders.isEmpty ? nil : dedupeHeaders, key: replace, scope: scope,
                ephemeral: ephemeral ? true : nil, bindConnection: bindConnection ? true : nil, follow: follow ? true : nil,
                onSuccess: try reportRequest(onSuccess, option: "--on-success"),
                onFailure: try reportRequest(onFailure, option: "--on-failure"))
            let connection = try global.connect()
            let result = try connection.call(.submit(spec), as: RegisterResult.self)
            return try reportRegistration(
                result, on: connection, json: global.json, quiet: output.quiet, follow: follow, wait: wait || bindConnection,
                line: {
                    var notes: [String] = []
                    if let replaced = result.replaced { notes.append("replaced \(replaced)") }
                    if result.deduplicated == true { notes.append("deduplicated: an identical request made it") }
                    let suffix = notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")"
                    return "submitted \(result.job.id)  \(result.job.request.map { "\($0.method) \($0.url)" } ?? target.url)\(suffix)"
                },
                ended: { job in
                    Output.line(EventRenderer.ending(job))
                    if let answer = job.result {
                        for header in answer.headers ?? [] { Output.line("  \(header)") }
                        if !answer.body.isEmpty { Output.line(answer.body + (answer.truncated ? "\n  (body cut)" : "")) }
                    }
                })
        }
    }
}

/// A report request from the `[METHOD] URL` words of `option`: POST unless a method is given; nil
/// when the option was not given.
func reportRequest(_ words: [String], option: String) throws -> RequestSpec? {
    guard !words.isEmpty else { return nil }
    let target = try MethodURL.one(words, option: option)
    return RequestSpec(method: target.method ?? "POST", url: target.url)
}
