import ReqdProtocol

/// A registration of a countdown, a poll or a group, as the scheduler admits them all alike.
///
/// Each kind's spec validates itself into its machine (`*Spec+Validation.swift`); what every
/// registration shares (key, scope, durability, binding, follow) comes out as `JobOptions`.
protocol JobSpec {
    /// What every kind's registration may carry.
    var options: JobOptions { get }

    /// The job's machine as it starts at `now`, or why the registration is refused.
    func work(at now: ClockReading, limits: SchedulerConfiguration) throws(SchedulerError) -> Job.Work
}
