import Glibc

extension ReqdCommand {
    /// The glibc tunable that makes malloc ask for transparent huge pages on the heap it maps.
    static let hugePageTunable = "glibc.malloc.hugetlb=1"

    /// Runs reqd again, in place, with malloc using transparent huge pages, unless `GLIBC_TUNABLES`
    /// is already set (then it is left as the operator set it).
    ///
    /// A daemon holding a million jobs touches about half a gigabyte of fresh heap while it
    /// restores them; in 4 KiB pages that is over a hundred thousand page faults, which took more
    /// than half of the start-up time (BENCHMARKS.md). glibc reads its tunables only when a
    /// process starts, so setting one means executing again. The pid, the arguments, the
    /// environment and inherited descriptors (socket activation) all stay as they were. When the
    /// kernel's huge pages are off, or the exec fails, reqd simply runs on without them.
    static func reexecWithHugePages() {
        guard getenv("GLIBC_TUNABLES") == nil else { return }
        setenv("GLIBC_TUNABLES", hugePageTunable, 1)
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        unsetenv("GLIBC_TUNABLES")
    }
}
