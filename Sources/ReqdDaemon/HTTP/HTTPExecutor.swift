import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import ReqdCore
import ReqdProtocol
import Synchronization

/// Carries out the scheduler's `send` and `abort` effects with one shared AsyncHTTPClient.
///
/// It holds no job state: it starts what it is told, reports each end through `onFinish`, and
/// keeps only the handles it needs to cancel a request on the wire. Connections are pooled per
/// host; TLS uses the system trust store.
public final class HTTPExecutor: Sendable {
    private struct Attempt: Hashable {
        var job: JobID
        var attempt: UInt32
    }

    private let client: HTTPClient
    private let group: MultiThreadedEventLoopGroup
    private let settings: HTTPSettings
    private let inFlight = Mutex<[Attempt: HTTPClient.Task<HTTPClient.Response>]>([:])
    private let onFinish: @Sendable (JobID, UInt32, HTTPOutcome) -> Void

    /// Creates the client and its event loops.
    ///
    /// - Parameter onFinish: called from an event loop when a request ends, however it ends.
    public init(settings: HTTPSettings, threads: Int, onFinish: @escaping @Sendable (JobID, UInt32, HTTPOutcome) -> Void) {
        self.settings = settings
        self.onFinish = onFinish
        group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, threads))
        var pool = HTTPClient.Configuration.ConnectionPool(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: settings.maxConnectionsPerHost)
        pool.retryConnectionEstablishment = false
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: nil,
            redirectConfiguration: settings.maxRedirects > 0 ? .follow(max: settings.maxRedirects, allowCycles: false) : .disallow,
            timeout: .init(connect: .nanoseconds(settings.connectTimeoutNanos), read: .nanoseconds(settings.requestTimeoutNanos)),
            connectionPool: pool, decompression: .disabled)
        configuration.httpVersion = .automatic
        client = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: configuration)
    }

    /// Number of requests out now, for tests and benchmarks.
    public var inFlightCount: Int { inFlight.withLock { $0.count } }

    /// Starts a request; its end is reported through `onFinish` unless it is aborted first.
    public func execute(_ send: HTTPSend) {
        let request: HTTPClient.Request
        do {
            var headers = HTTPHeaders()
            for header in send.request.headers { headers.add(name: header.name, value: header.value) }
            request = try HTTPClient.Request(
                url: send.request.url, method: HTTPMethod(rawValue: send.request.method), headers: headers,
                body: send.request.body.map { .bytes($0) })
        } catch {
            onFinish(send.job, send.attempt, .failure(Self.describe(error, settings: settings)))
            return
        }
        let key = Attempt(job: send.job, attempt: send.attempt)
        let task = client.execute(
            request: request, delegate: ResponseAccumulator(request: request, maxBodySize: settings.maxResponseBytes),
            deadline: .now() + .nanoseconds(settings.requestTimeoutNanos))
        inFlight.withLock { $0[key] = task }
        let parseJSON = send.parseJSON
        task.futureResult.whenComplete { result in
            let wanted = self.inFlight.withLock { $0.removeValue(forKey: key) } != nil
            guard wanted else { return }
            switch result {
            case .success(let response):
                self.onFinish(key.job, key.attempt, .response(Self.answer(response, parseJSON: parseJSON)))
            case .failure(let error):
                self.onFinish(key.job, key.attempt, .failure(Self.describe(error, settings: self.settings)))
            }
        }
    }

    /// Cancels a request on the wire: its connection is closed and its end is not reported.
    public func abort(job: JobID, attempt: UInt32) {
        let task = inFlight.withLock { $0.removeValue(forKey: Attempt(job: job, attempt: attempt)) }
        task?.cancel()
    }

    /// Cancels everything still out and closes the pool.
    public func shutdown() {
        let tasks = inFlight.withLock { tasks in
            defer { tasks.removeAll() }
            return Array(tasks.values)
        }
        for task in tasks { task.cancel() }
        try? client.syncShutdown()
        try? group.syncShutdownGracefully()
    }

    private static func answer(_ response: HTTPClient.Response, parseJSON: Bool) -> HTTPAnswer {
        let body = response.body.map { Array($0.readableBytesView) } ?? []
        var json: JSONValue?
        if parseJSON, !body.isEmpty {
            json = try? JSONDecoder().decode(JSONValue.self, from: Data(body))
        }
        return HTTPAnswer(
            status: Int(response.status.code), headers: response.headers.map { HTTPHeader(name: $0.name, value: $0.value) },
            body: body, json: json)
    }

    /// Words for a failed request; never the request's headers or body.
    static func describe(_ error: any Error, settings: HTTPSettings) -> String {
        if error is ResponseAccumulator.ResponseTooBigError {
            return "the response body is larger than \(settings.maxResponseBytes) bytes"
        }
        if let client = error as? HTTPClientError {
            switch client {
            case .deadlineExceeded, .readTimeout:
                return "no answer within \(DurationText.format(nanoseconds: settings.requestTimeoutNanos))"
            case .connectTimeout:
                return "could not connect within \(DurationText.format(nanoseconds: settings.connectTimeoutNanos))"
            case .remoteConnectionClosed:
                return "the server closed the connection before answering"
            case .redirectLimitReached:
                return "more than \(settings.maxRedirects) redirects"
            case .redirectCycleDetected:
                return "the redirects go round in a cycle"
            case .cancelled:
                return "the request was cancelled"
            default:
                return "HTTP client error: \(client.shortDescription)"
            }
        }
        if let connect = error as? NIOConnectionError {
            return "could not connect to \(connect.host):\(connect.port)"
        }
        if let io = error as? IOError {
            return "connection error: \(String(cString: strerror(io.errnoCode)))"
        }
        return "request failed: \(String(describing: error).prefix(200))"
    }
}
