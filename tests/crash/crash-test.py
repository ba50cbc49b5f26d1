#!/usr/bin/env python3
"""Crash test of the durable queue: acknowledged means delivered, across SIGKILLs.

Each round starts reqd on the same state directory, lets several clients submit durable
requests over the socket, and SIGKILLs the daemon at a random moment. After the last round
the daemon runs until every job is delivered. An HTTP server on loopback counts deliveries
by Idempotency-Key (reqd sets it to the job id).

It checks that every acknowledged job was delivered at least once, and that a job delivered
twice had a kill between its two deliveries, which is the case of an attempt in flight at the
kill. It prints the totals.

Usage: tests/crash/crash-test.py --bin DIR [--rounds 20] [--clients 4] [--seed N]
"""

import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Deliveries:
    """Requests the target received, by Idempotency-Key, with their arrival times."""

    def __init__(self):
        self.lock = threading.Lock()
        self.by_key = {}
        self.total = 0

    def record(self, key):
        with self.lock:
            self.by_key.setdefault(key, []).append(time.monotonic())
            self.total += 1

    def snapshot(self):
        with self.lock:
            return {key: list(times) for key, times in self.by_key.items()}, self.total


def make_handler(deliveries, rng_lock, rng):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            self.rfile.read(length)
            deliveries.record(self.headers.get("Idempotency-Key", "(none)"))
            with rng_lock:
                delay = rng.uniform(0, 0.05)
            time.sleep(delay)
            body = b'{"ok":true}'
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                pass  # the daemon was killed while we answered

        def log_message(self, *args):
            pass

    return Handler


class QuietServer(ThreadingHTTPServer):
    """Connections reset by a killed daemon are expected here, not errors worth a traceback."""

    daemon_threads = True

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (ConnectionError, OSError)):
            super().handle_error(request, client_address)


def start_daemon(binary, directory, log):
    socket_path = os.path.join(directory, "reqd.sock")
    process = subprocess.Popen(
        [
            binary, "--socket", socket_path, "--state-dir", os.path.join(directory, "state"),
            "--log-target", "stderr", "--log-level", "warning",
            "--set", "request.backoff_min=50ms", "--set", "request.backoff_max=500ms",
            # Every restart here leaves thousands of jobs overdue for one target; at the default
            # catch-up rate (50/s) the drain would take minutes. This test is about what survives.
            "--set", "request.catchup_rate=5000",
        ],
        stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                probe.connect(socket_path)
                return process, socket_path
        except OSError:
            if process.poll() is not None:
                raise SystemExit(f"crash-test: reqd exited with {process.returncode} at start")
            time.sleep(0.02)
    raise SystemExit("crash-test: reqd did not start within 20 s")


def client(socket_path, url, name, acknowledged, lock, stop):
    """Submits durable requests one after another until the daemon goes away or `stop` is set."""
    try:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(socket_path)
        reader = connection.makefile("rb")
    except OSError:
        return
    number = 0
    while not stop.is_set():
        number += 1
        request = {
            "id": number, "op": "submit", "method": "POST", "url": f"{url}/{name}/{number}",
            "body": json.dumps({"client": name, "n": number}), "dedupe_window_ms": 0, "max_attempts": 1000,
        }
        try:
            connection.sendall((json.dumps(request) + "\n").encode())
            line = reader.readline()
        except OSError:
            break
        if not line:
            break
        reply = json.loads(line)
        if reply.get("ok"):
            with lock:
                acknowledged.add(reply["result"]["job"]["id"])
    connection.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True, help="the directory holding reqd")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--drain-seconds", type=float, default=90)
    options = parser.parse_args()
    rng = random.Random(options.seed)
    rng_lock = threading.Lock()

    deliveries = Deliveries()
    server = QuietServer(("127.0.0.1", 0), make_handler(deliveries, rng_lock, random.Random(options.seed + 1)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/deliver"

    directory = tempfile.mkdtemp(prefix="reqd-crash-")
    log = open(os.path.join(directory, "reqd.log"), "wb")
    binary = os.path.join(options.bin, "reqd")
    acknowledged = set()
    lock = threading.Lock()
    kills = []
    print(f"crash-test: {options.rounds} rounds, {options.clients} clients, seed {options.seed}")
    try:
        for round_number in range(1, options.rounds + 1):
            process, socket_path = start_daemon(binary, directory, log)
            stop = threading.Event()
            threads = [
                threading.Thread(target=client, args=(socket_path, url, f"r{round_number}c{c}", acknowledged, lock, stop))
                for c in range(options.clients)
            ]
            for thread in threads:
                thread.start()
            time.sleep(rng.uniform(0.2, 1.2))
            killed_at = time.monotonic()
            process.send_signal(signal.SIGKILL)
            process.wait()
            # A request the killed daemon sent may reach the server a moment after the signal; it
            # belongs to this kill until the process is gone.
            kills.append((killed_at, time.monotonic() + 0.05))
            stop.set()
            for thread in threads:
                thread.join(timeout=10)
            with lock:
                count = len(acknowledged)
            print(f"  round {round_number:2}: killed after {len(kills)} kills; {count} jobs acknowledged so far")

        # The last start: let the daemon drain every job it holds.
        process, socket_path = start_daemon(binary, directory, log)
        deadline = time.monotonic() + options.drain_seconds
        while time.monotonic() < deadline:
            delivered, _ = deliveries.snapshot()
            if all(job in delivered for job in acknowledged):
                break
            time.sleep(0.1)
        time.sleep(0.5)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=20)
    finally:
        log.close()
        server.shutdown()

    delivered, total = deliveries.snapshot()
    missing = sorted(job for job in acknowledged if job not in delivered)
    duplicates = {key: times for key, times in delivered.items() if len(times) > 1}
    unexplained = []
    for key, times in duplicates.items():
        for first, second in zip(times, times[1:]):
            if not any(first <= gone and killed <= second for killed, gone in kills):
                unexplained.append(key)
                break
    extra = sum(len(times) - 1 for times in duplicates.values())
    print(f"crash-test: rounds {options.rounds}, kills {len(kills)}")
    print(f"crash-test: acknowledged {len(acknowledged)}, delivered {sum(1 for job in acknowledged if job in delivered)}, "
          f"missing {len(missing)}")
    print(f"crash-test: requests received {total}, jobs delivered more than once {len(duplicates)} "
          f"({extra} extra deliveries), all with a kill between the deliveries: {not unexplained}")
    print(f"crash-test: jobs delivered that were never acknowledged (killed before the reply) "
          f"{sum(1 for key in delivered if key not in acknowledged)}")
    failed = False
    if not acknowledged:
        print("crash-test: FAIL: no job was acknowledged", file=sys.stderr)
        failed = True
    if missing:
        print(f"crash-test: FAIL: acknowledged but never delivered: {missing[:10]}", file=sys.stderr)
        failed = True
    if unexplained:
        print(f"crash-test: FAIL: delivered twice without a kill in between: {unexplained[:10]}", file=sys.stderr)
        failed = True
    if failed:
        print(f"crash-test: the daemon's log is in {directory}/reqd.log", file=sys.stderr)
        sys.exit(1)
    shutil.rmtree(directory, ignore_errors=True)
    print("crash-test: OK")


if __name__ == "__main__":
    main()
