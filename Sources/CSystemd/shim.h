#ifndef REQD_CSYSTEMD_SHIM_H
#define REQD_CSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <sys/uio.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <time.h>
#include <malloc.h> /* malloc_trim: Glibc's Swift module leaves it out */

/* The peer credentials of a Unix socket; glibc hides `struct ucred` behind _GNU_SOURCE. */
struct reqd_ucred {
    int pid;
    unsigned int uid;
    unsigned int gid;
};

static inline int reqd_clock_boottime(void) { return CLOCK_BOOTTIME; }
static inline int reqd_tfd_cancel_on_set(void) { return TFD_TIMER_CANCEL_ON_SET; }
static inline int reqd_so_peercred(void) { return SO_PEERCRED; }

/* The netlink socket address (struct sockaddr_nl), spelled out here: <linux/netlink.h> clashes
   with glibc's socket headers in Swift's import. */
struct reqd_sockaddr_nl {
    unsigned short nl_family;
    unsigned short nl_pad;
    unsigned int nl_pid;
    unsigned int nl_groups;
};

/* NETLINK_ROUTE, and its multicast groups RTMGRP_LINK, RTMGRP_IPV4_IFADDR, RTMGRP_IPV4_ROUTE,
   RTMGRP_IPV6_IFADDR and RTMGRP_IPV6_ROUTE: every link, address and route change. */
static inline int reqd_netlink_route(void) { return 0; }
static inline unsigned int reqd_route_change_groups(void) { return 0x1 | 0x10 | 0x40 | 0x100 | 0x400; }
#endif
