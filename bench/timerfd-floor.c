/* The floor for timer lateness: one CLOCK_MONOTONIC timerfd re-armed with an absolute deadline to
 * the earliest of N deadlines spread over a window, as reqd's single timer is. Prints p50/p99/max
 * lateness of each deadline. With EARLY_US, a deadline more than 1 ms after the one before is woken
 * for twice, EARLY_US before it and at it, as reqd's daemon.early_wake does.
 * Usage: timerfd-floor [N] [WINDOW_SECONDS] [EARLY_US] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    double window = argc > 2 ? atof(argv[2]) : 10.0;
    int64_t early = argc > 3 ? atoll(argv[3]) * 1000 : 0;
    int64_t *deadlines = malloc(sizeof(int64_t) * n);
    double *late = malloc(sizeof(double) * n);
    int64_t start = now_ns() + 200000000;
    for (int i = 0; i < n; i++) deadlines[i] = start + (int64_t)(window * 1e9 * i / n);
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    int next = 0;
    while (next < n) {
        int64_t target = deadlines[next];
        int early_first = early > 0 && target - now_ns() > 1000000;
        struct itimerspec spec = {0};
        uint64_t expirations;
        for (int wake = early_first ? 0 : 1; wake < 2; wake++) {
            int64_t at = wake == 0 ? target - early : target;
            if (wake == 1 && now_ns() >= target) break;
            spec.it_value.tv_sec = at / 1000000000;
            spec.it_value.tv_nsec = at % 1000000000;
            timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
            if (read(fd, &expirations, sizeof expirations) < 0) return 1;
        }
        int64_t t = now_ns();
        while (next < n && deadlines[next] <= t) { late[next] = (t - deadlines[next]) / 1e6; next++; }
    }
    qsort(late, n, sizeof(double), cmp);
    printf("| %d | %.3f ms | %.3f ms | %.3f ms |\n", n, late[n / 2], late[(int)(n * 0.99)], late[n - 1]);
    return 0;
}
