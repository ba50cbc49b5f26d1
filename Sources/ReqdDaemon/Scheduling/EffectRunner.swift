import Dispatch
import Logging
import ReqdCore
import ReqdProtocol

/// Carries out a turn's effects: bookkeeping first, then the calls that leave the loop.
///
/// The first pass only sorts: the job deadline goes to the `WakeupPlan`, replies and events are
/// grouped per connection, store changes gather into one batch, requests and aborts queue up in their
/// order, and log lines are written. Only then come the outside calls: requests to the executor (in
/// order, so an abort finds the request it cancels), the batch to the store, and each connection's
/// lines to its sink in one send. As in AsyncHTTPClient's pool, which changes its state under the
/// lock and does its I/O after, nothing an outside call does can meet a half-sorted turn.
/// Confined to the loop's queue.
final class EffectRunner: @unchecked Sendable {
    // @unchecked Sendable: every stored var is touched only on `queue` (asserted in each entry
    // point); the store's reply to an attempt-log read hops back to `queue` before it sends.
    private enum WireOperation {
        case send(HTTPSend)
        case abort(JobID, attempt: UInt32)
    }

    private let queue: DispatchQueue
    private let logger: Logger
    private let memory: MemoryRelease
    private let metrics: DaemonMetrics
    private var sinks: [ConnectionID: any MessageSink] = [:]
    private var store: JobStore?
    /// Hands the store's answers to cluster queries back to the scheduler; set with the store.
    private var answers: (@Sendable (SchedulerEvent) -> Void)?
    private var executor: HTTPExecutor?
    /// Reused by every turn, which empties it before it ends.
    private var wire: [WireOperation] = []

    init(queue: DispatchQueue, logger: Logger, metrics: DaemonMetrics) {
        self.queue = queue
        self.logger = logger
        self.metrics = metrics
        memory = MemoryRelease(logger: logger)
    }

    /// Connects the store whose commits gate durable acknowledgements; `answers` takes its
    /// answers to cluster queries back to the scheduler, from any thread.
    func attach(store: JobStore, answers: @escaping @Sendable (SchedulerEvent) -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        self.store = store
        self.answers = answers
    }

    /// Connects the executor that carries out `send` and `abort`.
    func attach(executor: HTTPExecutor) {
        dispatchPrecondition(condition: .onQueue(queue))
        self.executor = executor
    }

    /// Lets go of the sinks, the store and the executor, once the loop has stopped.
    func detachAll() {
        dispatchPrecondition(condition: .onQueue(queue))
        sinks = [:]
        store = nil
        answers = nil
        executor = nil
    }

    /// A connection opened: its lines go to `sink` from now on.
    func opened(_ connection: ConnectionID, sink: any MessageSink) {
        dispatchPrecondition(condition: .onQueue(queue))
        sinks[connection] = sink
    }

    /// A connection closed: nothing more is sent to it.
    func closed(_ connection: ConnectionID) {
        dispatchPrecondition(condition: .onQueue(queue))
        sinks[connection] = nil
    }

    /// Carries out `effects`; returns the events that must come back to the scheduler in a later
    /// turn (a request with no executor fails, a batch with no store commits at once).
    func run(_ effects: [SchedulerEffect], plan: inout WakeupPlan) -> [SchedulerEvent] {
        dispatchPrecondition(condition: .onQueue(queue))
        var outputs: [ConnectionID: [OutboundMessage]] = [:]
        var batch = StoreBatch()
        var storedAttemptReplies: [(ConnectionID, RequestID, JobInfo)] = []
        var clusterQueries: [ClusterQuery] = []
        var unwatched: [JobID] = []
        for effect in effects {
            switch effect {
            case .arm(let instant):
                plan.jobDeadline = instant
            case .disarm:
                plan.jobDeadline = nil
            case .reply(let connection, let id, let result):
                if case .failure(let error) = result, Self.refusalsLogged.contains(error.code) {
                    logger.notice(
                        "refused: \(error.message)",
                        metadata: ["error.code": "\(error.code.rawValue)", "conn.id": "\(connection.rawValue)", "request.id": "\(id)"])
                }
                var result = result
                if case .success(.metrics(var body)) = result {
                    body.text = metrics.exposition(body)
                    result = .success(.metrics(body))
                }
                let response = Response(id: id, outcome: result.mapError(WireErrorMapping.wireError))
                outputs[connection, default: []].append(.response(response))
            case .deliver(let event, let recipients):
                metrics.observe(event.type, kind: event.kind, state: event.state)
                log(event)
                for recipient in recipients {
                    if recipient.connection == .cluster {
                        // A watcher on another daemon: the event goes there with this turn's commit.
                        if case .string(let daemon) = recipient.watch, let payload = ClusterNotice.payload(event, for: daemon) {
                            batch.notices.append(payload)
                        }
                    } else {
                        outputs[recipient.connection, default: []].append(.event(EventMessage(watch: recipient.watch, event: event)))
                    }
                }
            case .persist(let change):
                batch.changes.append(change)
            case .replyWithStoredAttempts(let connection, let id, let info):
                storedAttemptReplies.append((connection, id, info))
            case .commitBarrier(let token):
                batch.barriers.append(token)
            case .askCluster(let query):
                clusterQueries.append(query)
            case .unwatchElsewhere(let job):
                unwatched.append(job)
            case .send(let send):
                metrics.attemptStarted()
                wire.append(.send(send))
            case .abort(let job, let attempt):
                logger.debug("request aborted", metadata: ["job.id": "\(job)", "job.attempt": "\(attempt)"])
                wire.append(.abort(job, attempt: attempt))
            case .counted(let type, let kind):
                metrics.observe(type, kind: kind, state: nil)
            case .requestTimedOut(let nanoseconds):
                metrics.httpFinished(.failure("timed out"), nanoseconds: nanoseconds)
            case .notice(let message):
                logger.notice("\(message)")
            case .breakerChanged(let target, let state, let message):
                metrics.breakerChanged(to: state)
                logger.notice(
                    "circuit breaker of \(target) \(state.rawValue): \(message)", metadata: ["target": "\(target)", "breaker.state": "\(state.rawValue)"])
            case .debug(let job, let message):
                logger.debug("\(message)", metadata: ["job.id": "\(job)"])
            case .releaseMemory:
                memory.release()
            case .dispose(let disposal):
                memory.dispose(disposal)
            }
        }

        var feedback: [SchedulerEvent] = []
        if !wire.isEmpty {
            for operation in wire {
                switch operation {
                case .send(let send):
                    if let executor {
                        executor.execute(send)
                    } else {
                        feedback.append(.httpFinished(send.job, attempt: send.attempt, .failure("no HTTP executor")))
                    }
                case .abort(let job, let attempt):
                    executor?.abort(job: job, attempt: attempt)
                }
            }
            wire.removeAll(keepingCapacity: true)
        }
        if !batch.isEmpty {
            if let store {
                store.submit(batch)
            } else {
                feedback += batch.barriers.map { .commitCompleted($0, failure: nil) }
            }
        }
        for (connection, messages) in outputs {
            sinks[connection]?.send(messages)
        }
        for (connection, id, info) in storedAttemptReplies {
            replyWithStoredAttempts(connection, id, info)
        }
        for job in unwatched { store?.stopWatching(job.rawValue) }
        for query in clusterQueries {
            if let store, let answers {
                store.ask(query) { answers(.clusterAnswered(query, $0)) }
            } else {
                feedback.append(.clusterAnswered(query, .unavailable("this daemon shares no store with other daemons")))
            }
        }
        return feedback
    }

    /// Reads an ended durable job's attempt log from the store (after this turn's batch) and
    /// replies on the loop's queue; a store that cannot read it answers `storage_unavailable`.
    private func replyWithStoredAttempts(_ connection: ConnectionID, _ id: RequestID, _ info: JobInfo) {
        guard let store else {
            var info = info
            info.attempts = []
            sinks[connection]?.send([.response(Response(id: id, outcome: .success(.job(JobResult(job: info)))))])
            return
        }
        store.attempts(of: info.id) { [queue] attempts in
            queue.async {
                dispatchPrecondition(condition: .onQueue(self.queue))
                let outcome: Result<ReplyBody, SchedulerError>
                if let attempts {
                    var info = info
                    info.attempts = attempts
                    outcome = .success(.job(JobResult(job: info)))
                } else {
                    outcome = .failure(SchedulerError(.storageUnavailable, "the store could not read the attempts of job '\(info.id)'"))
                }
                self.sinks[connection]?.send([.response(Response(id: id, outcome: outcome.mapError(WireErrorMapping.wireError)))])
            }
        }
    }

    /// Refusals the journal carries: the daemon or a user at a limit, or the disk failing. Bad
    /// input is the client's business and is only answered.
    private static let refusalsLogged: Set<ErrorCode> = [.quotaExceeded, .tooManyJobs, .storageUnavailable]

    private func log(_ event: JobEvent) {
        guard logger.logLevel <= JobEventLog.level(of: event) else { return }
        let entry = JobEventLog.entry(for: event)
        logger.log(level: entry.level, "\(entry.message)", metadata: entry.metadata)
    }
}
