#!/usr/bin/env python3
"""Round trips of clients on one daemon of a cluster, for jobs it holds and jobs another holds.

Given the sockets of two daemons that share a PostgreSQL cluster (A and B), registers a durable
countdown on each, then times from one connection to A: `status` of A's own job, `status` of B's
job (read from the database), and `list --limit 10` (A's jobs merged with a page of the database's
rows). Then, 50 times: a `wait` on B for a countdown B holds, a `cancel` of it on A, and the time
until B's waiter hears the end (the cancel's UPDATE, the trigger's notice to B, B's end). Bounded:
500 calls per kind, 50 cancels.

Usage: bench/cluster-clients.py SOCKET_A SOCKET_B
"""
import json
import socket
import sys
import time


def connect(path):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    return s, s.makefile("rwb")


def call(f, message):
    f.write((json.dumps(message) + "\n").encode())
    f.flush()
    reply = json.loads(f.readline())
    if "result" not in reply:
        raise SystemExit(f"refused: {reply}")
    return reply["result"]


def countdown(f):
    return call(f, {"id": 1, "op": "register-countdown", "duration_ms": 3_600_000})["job"]["id"]


def timed(f, message, n=500):
    times = []
    for i in range(n):
        started = time.perf_counter()
        call(f, dict(message, id=i))
        times.append((time.perf_counter() - started) * 1e6)
    times.sort()
    return times[len(times) // 2], times[int(len(times) * 0.99)]


_, a = connect(sys.argv[1])
_, b = connect(sys.argv[2])
theirs, mine = countdown(b), countdown(a)
for name, message in [
    ("status, a job this daemon holds", {"op": "status", "job": mine}),
    ("status, a job the other daemon holds", {"op": "status", "job": theirs}),
    ("list --limit 10", {"op": "list", "limit": 10}),
]:
    p50, p99 = timed(a, message)
    print(f"{name}: p50 {p50:.0f} us, p99 {p99:.0f} us (500 calls, one connection)")
latencies = []
for _ in range(50):
    job = countdown(b)
    waiter, w = connect(sys.argv[2])
    w.write((json.dumps({"id": 9, "op": "wait", "job": job}) + "\n").encode())
    w.flush()
    time.sleep(0.02)
    started = time.perf_counter()
    call(a, {"id": 2, "op": "cancel", "job": job})
    w.readline()
    latencies.append((time.perf_counter() - started) * 1e3)
    waiter.close()
latencies.sort()
print(f"cancel on one daemon until the holder's own waiter hears the end: p50 {latencies[25]:.1f} ms, max {latencies[-1]:.1f} ms (50 jobs)")
