#!/usr/bin/env python3
"""Single-client round-trip latency by request kind, against a running reqd.

Shows where one request's time goes: a reply made on the event loop alone (bad JSON), a trip
through the scheduler queue (hello, status), a registration (JSON view of a job), and a durable
registration (store queue, fsync, and back). Bounded: a fixed number of requests per kind.

Usage: bench/latency.py SOCKET_PATH
"""
import socket
import sys
import time

path = sys.argv[1]
s = socket.socket(socket.AF_UNIX)
s.connect(path)
f = s.makefile("rwb")


def bench(name, make, n=3000):
    start = time.perf_counter()
    for i in range(n):
        f.write(make(i))
        f.flush()
        f.readline()
    elapsed = time.perf_counter() - start
    print(f"| {name} | {n / elapsed:,.0f}/s | {elapsed / n * 1e6:.0f} µs |")


print("| request | rate | per round trip |")
print("|---|---|---|")
bench("bad JSON (answered on the event loop)", lambda i: b"{bad\n")
bench("hello (through the scheduler queue)", lambda i: b'{"id":1,"op":"hello","protocol":1}\n')
bench("status of an unknown job", lambda i: b'{"id":1,"op":"status","job":"x"}\n')
bench("register-countdown, ephemeral", lambda i: b'{"id":1,"op":"register-countdown","key":"e%d","duration_ms":3600000,"ephemeral":true}\n' % i)
bench("register-countdown, durable", lambda i: b'{"id":1,"op":"register-countdown","key":"d%d","duration_ms":3600000}\n' % i, 1000)
