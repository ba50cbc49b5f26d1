#!/usr/bin/env python3
"""Fuzz of the HTTP side: a hostile server answers reqd's requests as badly as it can (issue 17).

The server listens on 127.0.0.1 and answers by path:

- huge: a 10 GiB Content-Length, and bytes until reqd hangs up;
- endless: a chunked body that never ends;
- nested-array, nested-object: 200 OK with JSON nested 100,000 deep (for poll conditions);
- garbage: random bytes instead of a status line;
- bad-status: `HTTP/1.1 abc`;
- headers: header lines that never end;
- long-header: one header line of 8 MiB;
- drip: a valid answer, one byte every 100 ms;
- hang-up: closes as soon as the request is read;
- bad-chunk: a chunk size that is not hex;
- redirect-loop: 302 to itself, for ever.

reqd gets one-shot `submit`s (one attempt each) and poll jobs for every path, with
`http.request_timeout=3s`. Meanwhile another client sends `status` every 20 ms. It checks:

- every job ends (failed, dead or timed_out; a nested body may also succeed) within 40 s, and
  every failed request names an error;
- reqd stays up, its RSS stays under --max-rss-mb, and it answers a new connection afterwards;
- every `status` round trip is answered `ok` within --max-status-ms (50).

As root it runs itself in a network namespace of its own with only loopback up, so nothing leaves
the machine whatever it is redirected to.

Usage: tests/fuzz/hostile-http.py --bin DIR [--jobs-per-path 8] [--max-status-ms 50] [--max-rss-mb 400]
"""

import argparse
import json
import multiprocessing
import os
import random
import shutil
import socket
import socketserver
import statistics
import subprocess
import sys
import tempfile
import threading
import time

PATHS = ["huge", "endless", "nested-array", "nested-object", "garbage", "bad-status", "headers",
         "long-header", "drip", "hang-up", "bad-chunk", "redirect-loop"]
TERMINAL = {"succeeded", "failed", "dead", "timed_out", "cancelled"}
# Every hostile answer stops after this long even if reqd keeps reading.
ANSWER_LIMIT_S = 30


class Hostile(socketserver.BaseRequestHandler):
    def handle(self):
        s = self.request
        s.settimeout(ANSWER_LIMIT_S)
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = s.recv(65536)
            if not chunk:
                return
            head += chunk
        path = head.split(b" ", 2)[1].decode(errors="replace").strip("/").split("?")[0]
        deadline = time.monotonic() + ANSWER_LIMIT_S
        rng = random.Random()
        try:
            if path == "huge":
                s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 10737418240\r\n\r\n")
                block = b"x" * 65536
                while time.monotonic() < deadline:
                    s.sendall(block)
            elif path == "endless":
                s.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                chunk = b"4000\r\n" + b"{" * 0x4000 + b"\r\n"
                while time.monotonic() < deadline:
                    s.sendall(chunk)
            elif path in ("nested-array", "nested-object"):
                depth = 100_000
                body = (b"[" * depth + b"]" * depth) if path == "nested-array" else (b'{"a":' * depth + b"1" + b"}" * depth)
                s.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
            elif path == "garbage":
                s.sendall(bytes(rng.randrange(256) for _ in range(4096)))
            elif path == "bad-status":
                s.sendall(b"HTTP/1.1 abc\r\nContent-Length: 0\r\n\r\n")
            elif path == "headers":
                s.sendall(b"HTTP/1.1 200 OK\r\n")
                line = b"X-Hostile: " + b"a" * 100 + b"\r\n"
                while time.monotonic() < deadline:
                    s.sendall(line * 100)
            elif path == "long-header":
                s.sendall(b"HTTP/1.1 200 OK\r\nX-Long: " + b"b" * (8 << 20) + b"\r\nContent-Length: 0\r\n\r\n")
            elif path == "drip":
                for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok":
                    if time.monotonic() > deadline:
                        break
                    s.sendall(bytes([byte]))
                    time.sleep(0.1)
            elif path == "hang-up":
                pass
            elif path == "bad-chunk":
                s.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n")
            elif path == "redirect-loop":
                port = self.server.server_address[1]
                s.sendall(b"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:%d/redirect-loop\r\nContent-Length: 0\r\n\r\n" % port)
            else:
                s.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        except OSError:
            pass  # reqd hung up, as it should on most of these


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0


def connect(path, timeout=30):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    return s


class Session:
    """One client connection that sends a request and reads its reply."""

    def __init__(self, path):
        self.socket = connect(path)
        self.lines = self.socket.makefile("rb")
        self.next_id = 0

    def call(self, body):
        self.next_id += 1
        self.socket.sendall(json.dumps({"id": self.next_id, **body}).encode() + b"\n")
        while True:
            reply = json.loads(self.lines.readline())
            if reply.get("id") == self.next_id:
                return reply


def prober(path, stop, round_trips, failures):
    """`status` every 20 ms on a connection of its own, timing each round trip."""
    session = Session(path)
    while not stop.is_set():
        started = time.monotonic()
        reply = session.call({"op": "status"})
        round_trips.append((time.monotonic() - started) * 1000)
        if reply.get("ok") is not True:
            failures.append(f"status answered {reply}")
        time.sleep(0.02)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--jobs-per-path", type=int, default=8)
    parser.add_argument("--max-status-ms", type=float, default=50)
    parser.add_argument("--max-rss-mb", type=float, default=400)
    parser.add_argument("--paths", default=",".join(PATHS), help="the hostile answers to use, comma-separated")
    args = parser.parse_args()
    paths = args.paths.split(",")

    if os.geteuid() == 0 and shutil.which("unshare") and shutil.which("ip") and not os.environ.get("REQD_HOSTILE_NETNS"):
        os.environ["REQD_HOSTILE_NETNS"] = "1"
        command = [sys.executable, os.path.abspath(__file__), *sys.argv[1:]]
        os.execvp("unshare", ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", *command])
    where = "in a network namespace of its own" if os.environ.get("REQD_HOSTILE_NETNS") else "on loopback (not root: no namespace)"

    # The server runs in a process of its own: its threads sending at full speed would otherwise
    # hold the interpreter lock that the status prober needs, and the prober would time itself.
    server = Server(("127.0.0.1", 0), Hostile)
    port = server.server_address[1]
    serving = multiprocessing.get_context("fork").Process(target=server.serve_forever, daemon=True)
    serving.start()
    server.server_close()

    work = tempfile.mkdtemp(prefix="reqd-hostile-")
    sock = os.path.join(work, "reqd.sock")
    log = open(os.path.join(work, "reqd.log"), "w")
    daemon = subprocess.Popen(
        [os.path.join(args.bin, "reqd"), "--socket", sock, "--state-dir", os.path.join(work, "state"),
         "--log-level", "warning", "--log-target", "stderr",
         "--set", "http.request_timeout=3s", "--set", "http.connect_timeout=2s"],
        stderr=log)
    failures = []
    stop = threading.Event()
    try:
        for _ in range(300):
            try:
                connect(sock, 1).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            sys.exit("hostile-http: reqd did not start")
        print(f"hostile-http: {len(paths)} hostile answers, {args.jobs_per_path} submits and one poll job each, reqd {where}")
        round_trips, probe_failures = [], []
        probe = threading.Thread(target=prober, args=(sock, stop, round_trips, probe_failures), daemon=True)
        probe.start()
        time.sleep(0.5)

        session = Session(sock)
        jobs = {}
        started = time.monotonic()
        for path in paths:
            url = f"http://127.0.0.1:{port}/{path}"
            for _ in range(args.jobs_per_path):
                reply = session.call({"op": "submit", "method": "GET", "url": url, "max_attempts": 1, "dedupe_window_ms": 0})
                if reply.get("ok") is not True:
                    failures.append(f"submit to {path} was refused: {reply}")
                    continue
                jobs[reply["result"]["job"]["id"]] = path
            reply = session.call({"op": "register-poll", "url": url, "every_ms": 200, "until": "/a == 1",
                                  "max_failures": 3, "timeout_ms": 20000})
            if reply.get("ok") is not True:
                failures.append(f"register-poll to {path} was refused: {reply}")
            else:
                jobs[reply["result"]["job"]["id"]] = path + " (poll)"

        peak, ended, views = 0.0, set(), {}
        deadline = started + 40
        while len(ended) < len(jobs) and time.monotonic() < deadline and daemon.poll() is None:
            peak = max(peak, rss_mb(daemon.pid))
            for job in set(jobs) - ended:
                reply = session.call({"op": "status", "job": job})
                view = reply.get("result", {}).get("job", {})
                if view.get("state") in TERMINAL:
                    ended.add(job)
                    views[job] = view
            time.sleep(0.2)
        elapsed = time.monotonic() - started
        stop.set()
        probe.join(timeout=10)

        if daemon.poll() is not None:
            failures.append(f"reqd exited with {daemon.returncode}")
        for job in sorted(set(jobs) - ended):
            failures.append(f"{job} ({jobs[job]}) did not end within 40 s")
        outcomes = {}
        for job, view in views.items():
            request = view.get("request") or {}
            outcome = view["state"]
            if jobs[job].endswith("(poll)"):
                error = (view.get("poll") or {}).get("last_error")
            else:
                error = request.get("last_error")
                if outcome != "succeeded" and not error:
                    failures.append(f"{job} ({jobs[job]}) ended {outcome} with no error named: {view}")
            outcomes.setdefault(jobs[job], set()).add(f"{outcome}: {(error or '')[:70]}")
        for path, seen in sorted(outcomes.items()):
            print(f"  {path:24} {'; '.join(sorted(seen))}")

        after = Session(sock).call({"op": "status"})
        if after.get("ok") is not True:
            failures.append(f"status on a new connection afterwards: {after}")
        peak = max(peak, rss_mb(daemon.pid)) if daemon.poll() is None else peak
        failures += probe_failures[:5]
        trips = sorted(round_trips)
        p50 = statistics.median(trips)
        p99 = trips[min(len(trips) - 1, int(len(trips) * 0.99))]
        print(f"hostile-http: {len(jobs)} jobs ended in {elapsed:.1f} s, peak RSS {peak:.0f} MB")
        print(f"hostile-http: status round trips meanwhile: {len(trips)}, p50 {p50:.2f} ms, p99 {p99:.2f} ms, max {trips[-1]:.2f} ms")
        if trips[-1] > args.max_status_ms:
            failures.append(f"a status round trip took {trips[-1]:.1f} ms, over {args.max_status_ms:.0f} ms")
        if peak > args.max_rss_mb:
            failures.append(f"peak RSS {peak:.0f} MB is over {args.max_rss_mb:.0f} MB")
        if failures:
            print("hostile-http: FAILED")
            for failure in failures:
                print("  " + failure)
            print(open(os.path.join(work, "reqd.log"), errors="replace").read()[-3000:])
            sys.exit(1)
        print("hostile-http: OK: every job ended with a named error, reqd stayed up and answered status in time")
    finally:
        stop.set()
        daemon.terminate()
        try:
            daemon.wait(timeout=30)
        except subprocess.TimeoutExpired:
            daemon.kill()
        log.close()
        serving.kill()
        serving.join()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
