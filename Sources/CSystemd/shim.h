#ifndef REQD_CSYSTEMD_SHIM_H
#define REQD_CSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <sys/uio.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <time.h>

/* The peer credentials of a Unix socket; glibc hides `struct ucred` behind _GNU_SOURCE. */
struct reqd_ucred {
    int pid;
    unsigned int uid;
    unsigned int gid;
};

static inline int reqd_clock_boottime(void) { return CLOCK_BOOTTIME; }
static inline int reqd_tfd_cancel_on_set(void) { return TFD_TIMER_CANCEL_ON_SET; }
static inline int reqd_so_peercred(void) { return SO_PEERCRED; }
#endif
