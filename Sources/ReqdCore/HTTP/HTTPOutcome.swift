/// How a request the scheduler asked for ended, as the executor reports it.
public enum HTTPOutcome: Sendable, Hashable {
    /// An answer arrived (of any status).
    case response(HTTPAnswer)
    /// No answer: the connection failed or timed out.
    case failure(String)
    /// An answer came, but reqd could not take it: its body is larger than
    /// `http.max_response_bytes` (decoded, for a compressed one) or its encoding could not be
    /// decoded. The attempt fails as with `failure`; but the server did answer, so it says nothing
    /// of the target's health to its circuit breaker or the network hold.
    case rejected(String)
    /// The target's network could not be reached: no route to it (ENETUNREACH, EHOSTUNREACH) or
    /// name resolution failing for now (EAI_AGAIN). Request jobs hold on it without spending an
    /// attempt; other kinds count it as a failure.
    case unreachable(String)
    /// The target policy refused every connection the request needed (`TargetPolicy.Denial.jobError`);
    /// nothing was sent. It is not retried: the same request meets the same policy.
    case denied(String)
}
