#ifndef REQD_CSYSTEMD_SHIM_H
#define REQD_CSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <sys/uio.h>
#endif
