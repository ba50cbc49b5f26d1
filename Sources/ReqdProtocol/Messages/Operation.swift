/// The operations a request line can name in its `op` field.
public enum Operation: String, Codable, Sendable, CaseIterable {
    case hello
    case registerCountdown = "register-countdown"
    case registerPoll = "register-poll"
    case submit
    case registerGroup = "register-group"
    case retry
    case delete
    case cancel
    case status
    case list
    case watch
    case unwatch
    case wait
    case metrics
    case registerSchedule = "register-schedule"
    case pause
    case resume
}
