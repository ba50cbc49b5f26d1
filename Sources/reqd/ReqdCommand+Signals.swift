import Foundation
import Glibc

extension ReqdCommand {
    /// The signals reqd handles itself: SIGTERM and SIGINT stop it, SIGHUP reloads.
    static let handledSignals = [SIGTERM, SIGINT, SIGHUP]

    /// Blocks the handled signals in this thread, before any other thread exists, so every thread
    /// the daemon starts inherits the mask and none of them can take a signal meant for reqd.
    ///
    /// A blocked signal stays pending until `serveSignals` takes it. So one that arrives while the
    /// jobs are still being restored is not lost: it is handled as soon as the daemon is up.
    static func blockHandledSignals() {
        var set = signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Waits on the main thread for the handled signals and acts on each in turn; never returns.
    ///
    /// The signals are taken with `sigwait`, so nothing races to receive them. Dispatch signal
    /// sources were used before. On Linux they read a `signalfd`, which sees only a signal that is
    /// blocked wherever the kernel could deliver it, and the main thread parked by `dispatchMain()`
    /// waits with every signal open; in the benchmark runs of 2026-11-23, two daemons out of about
    /// a hundred never acted on their SIGTERM. Under systemd that is a stop that waits for its
    /// timeout and ends in SIGKILL.
    static func serveSignals(reload: () -> Void, stop: () -> Void) -> Never {
        var set = signalSet()
        while true {
            var number: Int32 = 0
            guard sigwait(&set, &number) == 0 else { continue }
            if number == SIGHUP {
                reload()
            } else {
                stop()
                Foundation.exit(0)
            }
        }
    }

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in handledSignals { sigaddset(&set, number) }
        return set
    }
}
