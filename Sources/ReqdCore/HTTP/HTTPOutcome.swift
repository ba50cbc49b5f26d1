/// How a request the scheduler asked for ended, as the executor reports it.
public enum HTTPOutcome: Sendable, Hashable {
    /// An answer arrived (of any status).
    case response(HTTPAnswer)
    /// No usable answer: the connection failed, timed out, or the body was too large.
    case failure(String)
    /// The target's network could not be reached: no route to it (ENETUNREACH, EHOSTUNREACH) or
    /// name resolution failing for now (EAI_AGAIN). Request jobs hold on it without spending an
    /// attempt; other kinds count it as a failure.
    case unreachable(String)
    /// The target policy refused every connection the request needed (`TargetPolicy.Denial.jobError`);
    /// nothing was sent. It is not retried: the same request meets the same policy.
    case denied(String)
}
