#ifndef REQD_CSYSTEMD_SHIM_H
#define REQD_CSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <sys/uio.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <time.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/* The peer credentials of a Unix socket; glibc hides `struct ucred` behind _GNU_SOURCE. */
struct reqd_ucred {
    int pid;
    unsigned int uid;
    unsigned int gid;
};

static inline int reqd_clock_boottime(void) { return CLOCK_BOOTTIME; }
static inline int reqd_tfd_cancel_on_set(void) { return TFD_TIMER_CANCEL_ON_SET; }
static inline int reqd_so_peercred(void) { return SO_PEERCRED; }

/* A non-blocking NETLINK_ROUTE socket subscribed to link, address and route changes (IPv4 and
   IPv6); -1 with errno set when the kernel or a sandbox refuses it. */
static inline int reqd_route_monitor_open(void) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) return -1;
    struct sockaddr_nl address;
    memset(&address, 0, sizeof address);
    address.nl_family = AF_NETLINK;
    address.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE;
    if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}
#endif
