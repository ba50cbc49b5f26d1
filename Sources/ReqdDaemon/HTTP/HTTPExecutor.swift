import AsyncHTTPClient
import Logging
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import ReqdCore
import ReqdProtocol
import Synchronization

/// Carries out the scheduler's `send` and `abort` effects with one shared AsyncHTTPClient.
///
/// It holds no job state: it starts what it is told, reports each end through `onFinish`, and
/// keeps only the handles it needs to cancel a request on the wire. Connections are pooled per
/// host; TLS uses the system trust store, and a target's `ca_file` and client certificate
/// (`tlsConfiguration(for:)`). With a target policy, every connection goes through
/// the `TargetGate`, and a refusal there ends the request `denied`. With proxies in the
/// environment, a request whose host `no_proxy` does not cover goes through its scheme's proxy,
/// on a client of its own.
///
/// At most `maxConnectionsPerHost` requests per host are handed to the client at once; the rest
/// wait here in a plain FIFO. Queued inside the client, each would cost a timer and its
/// bookkeeping, which with thousands of poll jobs on one host costs more than the requests. A
/// reload may change that limit (`setMaxConnectionsPerHost(_:)`); one that raises it past the
/// clients' pools makes new clients (`ClientGeneration`).
public final class HTTPExecutor: Sendable {
    /// The `User-Agent` every request carries unless its job sets one: servers and their logs can
    /// tell reqd's requests apart, and some refuse requests with none.
    public static let userAgent = "reqd/\(ProtocolInfo.softwareVersion)"

    struct Attempt: Hashable {
        var job: JobID
        var attempt: UInt32
    }

    /// Requests per host: how many the client has, and which wait their turn, each with its ticket.
    struct HostQueue {
        var running = 0
        var waiting = CircularBuffer<(send: HTTPSend, ticket: UInt64)>()
    }

    /// Where an attempt is, under the ticket its `execute` got: the same job and attempt number
    /// may be sent again (a held job gets its attempt back), and a stale copy of it still queued
    /// or starting must neither start nor report.
    enum Slot {
        case waiting(host: Substring, ticket: UInt64)
        case starting(ticket: UInt64)
        case running(HTTPClient.Task<HTTPClient.Response>, ticket: UInt64)

        var ticket: UInt64 {
            switch self {
            case .waiting(_, let ticket), .starting(let ticket), .running(_, let ticket): ticket
            }
        }
    }

    struct State {
        var slots: [Attempt: Slot] = [:]
        var nextTicket: UInt64 = 1
        var hosts: [Substring: HostQueue] = [:]
        /// The clients new requests go through.
        var clients: ClientGeneration
        /// Requests handed to each generation's clients that have not ended yet.
        var running: [Int: Int] = [:]
        /// Older generations with requests still out, by number.
        var retired: [Int: ClientGeneration] = [:]
    }

    /// How the clients are made: the configuration before a pool size and the proxies.
    let baseConfiguration: HTTPClient.Configuration
    let gate: TargetGate?
    let group: MultiThreadedEventLoopGroup
    let settings: HTTPSettings
    let state: Mutex<State>
    /// Requests per host handed to the client at once (`http.max_connections_per_host`).
    let perHostLimit: Atomic<Int>
    /// Set when a request failed for lack of descriptors, until one is free again (`start`).
    private let descriptorsShort = Atomic(false)
    private let onFinish: @Sendable (JobID, UInt32, HTTPOutcome, String?) -> Void
    /// Where each attempt went, for the attempt log.
    private let recorder: AttemptAddressRecorder
    private let onAbortedAddress: (@Sendable (JobID, UInt32, String) -> Void)?
    /// Whether a request may start now (`init`'s `mayStart`).
    private let mayStart: @Sendable () -> Bool
    private let metrics: DaemonMetrics?
    /// The TLS configurations made for targets' files (`tlsConfiguration(for:)`).
    private let tlsConfigurations = Mutex<[TargetTLS: TLSConfiguration]>([:])

    /// Creates the client and its event loops, and the target gate when `policy` can refuse anything.
    ///
    /// - Parameters:
    ///   - onFinish: called from an event loop when a request ends, however it ends, with the
    ///     address the request was sent to when it reached a connection.
    ///   - onAbortedAddress: called from `abort` with the address an aborted request had been
    ///     sent to, for the attempt log of a request aborted at its timeout.
    ///   - mayStart: asked as each request starts, queued or not; when it says no, the request
    ///     is dropped unreported: the daemon's lease on a shared store may have run out, so
    ///     another daemon may run the job now, and this one is exiting.
    public init(
        settings: HTTPSettings, policy: TargetPolicy = TargetPolicy(), logger: Logger = Logger(label: "reqd"),
        metrics: DaemonMetrics? = nil, onAbortedAddress: (@Sendable (JobID, UInt32, String) -> Void)? = nil,
        mayStart: @escaping @Sendable () -> Bool = { true },
        onFinish: @escaping @Sendable (JobID, UInt32, HTTPOutcome, String?) -> Void
    ) throws {
        self.mayStart = mayStart
        self.settings = settings
        perHostLimit = Atomic(settings.maxConnectionsPerHost)
        self.metrics = metrics
        self.onFinish = onFinish
        self.onAbortedAddress = onAbortedAddress
        group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, settings.threads))
        if policy.isActive {
            do {
                gate = try TargetGate(policy: policy, settings: settings, group: group, logger: logger)
            } catch {
                try? group.syncShutdownGracefully()
                throw error
            }
        } else {
            gate = nil
        }
        let recorder = AttemptAddressRecorder(gate: gate)
        self.recorder = recorder
        var configuration = Self.clientConfiguration(settings)
        configuration.http1_1ConnectionDebugInitializer = { recorder.install(on: $0) }
        configuration.http2StreamChannelDebugInitializer = { recorder.install(on: $0) }
        baseConfiguration = configuration
        state = Mutex(State(clients: Self.makeClients(0, poolLimit: settings.maxConnectionsPerHost, configuration, settings, gate, group)))
    }

    /// The AsyncHTTPClient configuration reqd runs with, before proxies and the target gate: a
    /// pool of `maxConnectionsPerHost` per host that gives up on a failed connection at once (the
    /// scheduler retries), redirects as configured, and gzip or deflate answers decoded, never past
    /// `maxResponseBytes` decoded (a compression bomb fails the attempt).
    /// Benchmarks build their bare client from it too.
    public static func clientConfiguration(_ settings: HTTPSettings) -> HTTPClient.Configuration {
        var pool = HTTPClient.Configuration.ConnectionPool(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: settings.maxConnectionsPerHost)
        pool.retryConnectionEstablishment = false
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: nil,
            redirectConfiguration: settings.maxRedirects > 0 ? .follow(max: settings.maxRedirects, allowCycles: false) : .disallow,
            timeout: .init(connect: .nanoseconds(settings.connectTimeoutNanos), read: .nanoseconds(settings.readTimeoutNanos)),
            connectionPool: pool, decompression: .enabled(limit: .size(settings.maxResponseBytes)))
        configuration.httpVersion = .automatic
        return configuration
    }

    /// Starts a request (or queues it behind its host's others); its end is reported through
    /// `onFinish` unless it is aborted first.
    public func execute(_ send: HTTPSend) {
        let host = RequestURL.origin(send.request.url)
        let key = Attempt(job: send.job, attempt: send.attempt)
        let limit = perHostLimit.load(ordering: .relaxed)
        let (startNow, ticket) = state.withLock { state -> (Bool, UInt64) in
            let ticket = state.nextTicket
            state.nextTicket += 1
            // Mutated in place: a copy of the queue would copy its whole buffer.
            if state.hosts[host, default: HostQueue()].running < limit, state.hosts[host, default: HostQueue()].waiting.isEmpty {
                state.hosts[host, default: HostQueue()].running += 1
                state.slots[key] = .starting(ticket: ticket)
                return (true, ticket)
            }
            state.hosts[host, default: HostQueue()].waiting.append((send, ticket))
            state.slots[key] = .waiting(host: host, ticket: ticket)
            return (false, ticket)
        }
        if startNow { start(send, host: host, ticket: ticket) }
    }

    /// Takes the slot of a start that has not been aborted, for its end to be reported; false
    /// when an abort (or a later send of the same attempt) took it.
    private func takeStarting(_ key: Attempt, ticket: UInt64) -> Bool {
        state.withLock { state in
            guard case .starting(ticket)? = state.slots[key] else { return false }
            state.slots[key] = nil
            return true
        }
    }

    /// Hands a request to the client; on its end, reports it and starts the host's next one.
    private func start(_ send: HTTPSend, host: Substring, ticket: UInt64) {
        let key = Attempt(job: send.job, attempt: send.attempt)
        guard mayStart() else {
            _ = takeStarting(key, ticket: ticket)
            return
        }
        // While descriptors are short, a request that could not open a connection is not handed
        // to the client: each failed connection would lengthen the client's backoff for the
        // target, and its first request after the shortage would wait out up to a minute of it.
        if descriptorsShort.load(ordering: .relaxed) {
            guard Self.hasSpareDescriptor() else {
                let wanted = takeStarting(key, ticket: ticket)
                let why = Self.describe(IOError(errnoCode: EMFILE, reason: "socket"), settings: settings)
                // From the event loop, as every other end: never from inside `execute`, and the
                // host's next request starts from there too, not by recursion here.
                group.next().execute {
                    self.finished(host: host)
                    if wanted { self.report(key, .unreachable(why), since: nil) }
                }
                return
            }
            descriptorsShort.store(false, ordering: .relaxed)
        }
        let request: HTTPClient.Request
        do {
            var headers = HTTPHeaders()
            for header in send.request.headers { headers.add(name: header.name, value: header.value) }
            if !headers.contains(name: "User-Agent") { headers.add(name: "User-Agent", value: Self.userAgent) }
            headers.replaceOrAdd(name: AttemptAddressRecorder.header, value: AttemptAddressRecorder.tag(job: send.job.rawValue, attempt: send.attempt))
            // The client asks for gzip and deflate itself unless a request names what it accepts.
            if !send.acceptCompressed, !headers.contains(name: "Accept-Encoding") { headers.add(name: "Accept-Encoding", value: "identity") }
            if let signing = send.signing {
                WebhookSigner.sign(&headers, body: send.request.body, signing: signing, timestamp: Int64(Date().timeIntervalSince1970))
            }
            request = try HTTPClient.Request(
                url: send.request.url, method: HTTPMethod(rawValue: send.request.method), headers: headers,
                body: send.request.body.map { .bytes($0) }, tlsConfiguration: try send.tls.map(tlsConfiguration(for:)))
        } catch {
            finished(host: host)
            if takeStarting(key, ticket: ticket) { report(key, .failure(Self.describe(error, settings: settings)), since: nil) }
            return
        }
        // An abort before the request goes to the client: it never goes.
        guard state.withLock({ if case .starting(ticket)? = $0.slots[key] { true } else { false } }) else {
            finished(host: host)
            return
        }
        // No per-request deadline here: the scheduler times requests out from its own heap and
        // aborts them. A deadline per request would put one timer per queued request in NIO.
        let delegate = HopRecordingDelegate(
            request: request, maxBodySize: settings.maxResponseBytes,
            sameOriginOnly: settings.maxRedirects > 0 && (send.signing != nil || send.tls?.clientCertPEM != nil))
        let clients = state.withLock { state in
            state.running[state.clients.number, default: 0] += 1
            return state.clients
        }
        let via = clients.client(for: send.request.url, proxies: settings.proxies)
        let started = SystemClock.now().instant
        recorder.expect(AttemptAddressRecorder.tag(job: key.job.rawValue, attempt: key.attempt), pace: send.pace)
        let task = via.execute(request: request, delegate: delegate)
        let kept = state.withLock { state -> Bool in
            guard case .starting(ticket)? = state.slots[key] else { return false }
            state.slots[key] = .running(task, ticket: ticket)
            return true
        }
        // Aborted while it was being handed over: cancelled now, its end not reported, and its
        // address not waited for.
        if !kept {
            task.cancel()
            _ = recorder.take(AttemptAddressRecorder.tag(job: key.job.rawValue, attempt: key.attempt))
        }
        let (parseJSON, keepHeaders) = (send.parseJSON, send.keepHeaders)
        task.futureResult.whenComplete { result in
            let (wanted, done) = self.state.withLock { state -> (Bool, ClientGeneration?) in
                var wanted = false
                if case .running(_, ticket)? = state.slots[key] {
                    state.slots[key] = nil
                    wanted = true
                }
                return (wanted, Self.ended(clients.number, in: &state))
            }
            if let done { Self.shutDown(done) }
            self.finished(host: host)
            guard wanted else { return }
            switch result {
            case .success(let response):
                self.report(key, .response(Self.answer(response, parseJSON: parseJSON, keepHeaders: keepHeaders)), since: started)
            case .failure(let error):
                self.report(key, self.outcome(of: error, lastHop: delegate.lastHop), since: started)
            }
        }
    }

    /// The TLS configuration of a target's `ca_file` and client certificate, made once for each
    /// set of files: the client pools connections by it, so requests to the target share them.
    private func tlsConfiguration(for tls: TargetTLS) throws -> TLSConfiguration {
        if let made = tlsConfigurations.withLock({ $0[tls] }) { return made }
        let configuration = try TLSConfiguration.forTarget(tls)
        tlsConfigurations.withLock { made in
            // A reload that changes the files makes new ones; the old ones go after a while.
            if made.count >= 64 { made.removeAll() }
            made[tls] = configuration
        }
        return configuration
    }

    /// Counts a request's end, and how long it took when it went out, then reports it with the
    /// address it was sent to.
    private func report(_ key: Attempt, _ outcome: HTTPOutcome, since started: Instant?) {
        metrics?.httpFinished(outcome, nanoseconds: started.map { SystemClock.now().instant.nanoseconds(since: $0) })
        let address = started == nil ? nil : recorder.take(AttemptAddressRecorder.tag(job: key.job.rawValue, attempt: key.attempt))
        onFinish(key.job, key.attempt, outcome, address)
    }

    /// Frees a host's slot and starts the requests waiting for it, if any.
    private func finished(host: Substring) { startWaiting(host: host, freed: 1) }

    /// Starts requests waiting for `host` while it has fewer than the limit out, after `freed`
    /// of its requests ended.
    func startWaiting(host: Substring, freed: Int) {
        let limit = perHostLimit.load(ordering: .relaxed)
        let next = state.withLock { state -> [(send: HTTPSend, ticket: UInt64)] in
            // Only the count: a copy of the queue would make the pops below copy its buffer.
            guard var running = state.hosts[host]?.running else { return [] }
            running -= freed
            var next: [(send: HTTPSend, ticket: UInt64)] = []
            // Skip requests aborted while they waited, and stale copies of an attempt sent again.
            while running < limit, let waiting = state.hosts[host]?.waiting.popFirst() {
                let key = Attempt(job: waiting.send.job, attempt: waiting.send.attempt)
                guard case .waiting(_, waiting.ticket)? = state.slots[key] else { continue }
                state.slots[key] = .starting(ticket: waiting.ticket)
                next.append(waiting)
                running += 1
            }
            state.hosts[host]?.running = running
            if running == 0 { state.hosts[host] = nil }
            return next
        }
        for waiting in next { start(waiting.send, host: host, ticket: waiting.ticket) }
    }

    /// Whether a descriptor can be opened now.
    private static func hasSpareDescriptor() -> Bool {
        let spare = dup(STDIN_FILENO)
        guard spare >= 0 else { return errno != EMFILE && errno != ENFILE }
        close(spare)
        return true
    }

    /// Whether the error, or any connection error inside it, is running out of descriptors.
    private static func isOutOfDescriptors(_ error: any Error) -> Bool {
        if let io = error as? IOError { return io.errnoCode == EMFILE || io.errnoCode == ENFILE }
        if let connect = error as? NIOConnectionError { return connect.connectionErrors.contains { isOutOfDescriptors($0.error) } }
        return false
    }

    /// What a failed request comes to; a refusal by the gate is looked up there by the last hop.
    /// Any failure while no descriptor is free (a name lookup that could not open its socket
    /// fails as EAI_SYSTEM) counts as the shortage it is.
    private func outcome(of error: any Error, lastHop: String?) -> HTTPOutcome {
        if Self.isOutOfDescriptors(error) || !Self.hasSpareDescriptor() {
            descriptorsShort.store(true, ordering: .relaxed)
            return .unreachable(Self.describe(IOError(errnoCode: EMFILE, reason: "socket"), settings: settings))
        }
        if let gate, let client = error as? HTTPClientError,
            client == .invalidProxyResponse || client == .proxyAuthenticationRequired, let lastHop
        {
            switch gate.failure(for: lastHop) {
            case .denied(let denial): return .denied(denial.jobError)
            case .unreachable(let why): return .unreachable(why)
            case .failed(let why): return .failure(why)
            case nil: return .failure("the target gate gave no connection to \(lastHop)")
            }
        }
        let why = Self.describe(error, settings: settings)
        // Refused by reqd's own rule, as the target policy refuses: no retry would go otherwise,
        // and it says nothing of the target's health.
        if error is HopRecordingDelegate.CrossOriginRedirect { return .denied(why) }
        if Self.isRejectedAnswer(error) { return .rejected(why) }
        return Self.isUnreachable(error) ? .unreachable(why) : .failure(why)
    }

    /// Cancels a request: on the wire when it is out, from the queue when it waits. Its end is not reported.
    public func abort(job: JobID, attempt: UInt32) {
        let slot = state.withLock { $0.slots.removeValue(forKey: Attempt(job: job, attempt: attempt)) }
        guard case .running(let task, _) = slot else { return }
        task.cancel()
        if let address = recorder.take(AttemptAddressRecorder.tag(job: job.rawValue, attempt: attempt)) {
            onAbortedAddress?(job, attempt, address)
        }
    }

    /// Cancels everything still out and closes the pool.
    public func shutdown() {
        let (slots, clients) = state.withLock { state in
            defer {
                state.slots = [:]
                state.hosts = [:]
                state.retired = [:]
            }
            return (Array(state.slots.values), [state.clients] + Array(state.retired.values))
        }
        for case .running(let task, _) in slots { task.cancel() }
        for client in clients.flatMap(\.all) { try? client.syncShutdown() }
        gate?.close()
        try? group.syncShutdownGracefully()
    }

    private static func answer(_ response: HTTPClient.Response, parseJSON: Bool, keepHeaders: Bool) -> HTTPAnswer {
        let body = response.body.map { Array($0.readableBytesView) } ?? []
        let json = parseJSON && !body.isEmpty ? JSONValue(json: body) : nil
        let headers = keepHeaders ? response.headers.map { HTTPHeader(name: $0.name, value: $0.value) } : nil
        let status = Int(response.status.code)
        let retryAfter = status == 429 || status == 503 ? response.headers.first(name: "retry-after") : nil
        return HTTPAnswer(status: status, body: body, json: json, headers: headers, retryAfter: retryAfter)
    }
}
