extension Configuration {
    /// What SIGHUP makes of a newly loaded configuration, decided by the settings table.
    ///
    /// - Returns: `running`, this configuration with every reloadable setting taken from `new`, which
    ///   the daemon runs with from now on; and `needsRestart`, the keys (in table order) whose value in
    ///   `new` differs but takes effect only on restart. Those keep their running value, so the next
    ///   reload reports them again until the daemon restarts.
    func reloaded(with new: Configuration) -> (running: Configuration, needsRestart: [String]) {
        var running = self
        var needsRestart: [String] = []
        for setting in Self.settings where setting.differs(from: self, in: new) {
            if setting.isReloadable {
                setting.copy(from: new, into: &running)
            } else {
                needsRestart.append(setting.key)
            }
        }
        // The target tables are not in the settings table (the file names their hosts); all reload.
        running.scheduler.targets = new.scheduler.targets
        running.scheduler.targets.defaultConcurrency = running.http.maxConnectionsPerHost
        return (running, needsRestart)
    }
}
