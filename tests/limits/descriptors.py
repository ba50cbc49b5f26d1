#!/usr/bin/env python3
"""At the open-file limit: reqd under `prlimit --nofile=256` with 400 clients (issue 23).

Two runs of a real daemon, each with a client connected first ("the control client"), then 400
more connections:

1. With the default `socket.max_connections` (derived from the limit: (256 - 64) / 2 = 96), the
   connections past the cap each get one `too_many_connections` line and are closed. While the
   daemon holds the cap: its CPU stays under --max-cpu (10% of a core), the control client's
   `status` answers, a `submit` still reaches the test HTTP server, and a new client is refused
   with `too_many_connections`. After the 400 leave, a new client connects and is served.
2. With the cap lifted above the limit (`socket.max_connections=100000`), accepting runs out of
   descriptors itself: the daemon pauses accepting instead of spinning (CPU under --max-cpu), logs
   one warning for the episode, and the control client's `status` still answers. A countdown
   registered meanwhile expires on time (the daemon's timer needs no new descriptor). A `submit`
   that cannot open a connection meanwhile is held, spending no attempt, and is delivered once the
   clients leave; then new clients connect.

As root it runs itself in a network namespace of its own with only loopback up.

Usage: tests/limits/descriptors.py --bin DIR [--clients 400] [--nofile 256] [--max-cpu 0.10]
"""

import argparse
import http.server
import json
import os
import resource
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


class Line:
    """A blocking JSON-lines client."""

    def __init__(self, path, timeout=5):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buffer = b""
        self.next_id = 0

    def line(self):
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def call(self, body):
        self.next_id += 1
        body = dict(body, id=self.next_id)
        self.sock.sendall(json.dumps(body).encode() + b"\n")
        while True:
            message = self.line()
            if message is None or message.get("id") == self.next_id:
                return message

    def close(self):
        self.sock.close()


class Hooks(http.server.BaseHTTPRequestHandler):
    received = []

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        Hooks.received.append(self.rfile.read(length))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def start_daemon(args, work, name, extra):
    socket_path = f"{work}/{name}.sock"
    log = open(f"{work}/{name}.log", "w")
    process = subprocess.Popen(
        ["prlimit", f"--nofile={args.nofile}:{args.nofile}", f"{args.bin}/reqd", "--socket", socket_path,
         "--state-dir", f"{work}/{name}-state", "--log-target", "stderr", *extra],
        stderr=log, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            client = Line(socket_path)
            if client.call({"op": "status"}).get("ok"):
                return process, socket_path, client
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"descriptors: reqd did not start; see {work}/{name}.log")


def open_clients(path, count):
    """Opens `count` connections without waiting for their answers; returns the sockets."""
    sockets = []
    for _ in range(count):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.connect(path)
        except (BlockingIOError, InterruptedError):
            pass
        except OSError as error:
            s.close()
            raise SystemExit(f"descriptors: connect failed: {error}")
        sockets.append(s)
    return sockets


def refusals(sockets, seconds):
    """Lines the sockets got within `seconds`, as error codes; and how many were closed."""
    codes, closed, buffers = [], set(), {s: b"" for s in sockets}
    deadline = time.monotonic() + seconds
    open_ones = list(sockets)
    while open_ones and time.monotonic() < deadline:
        readable, _, _ = select.select(open_ones, [], [], max(0, deadline - time.monotonic()))
        for s in readable:
            try:
                chunk = s.recv(65536)
            except (BlockingIOError, ConnectionResetError):
                chunk = b""
            if not chunk:
                closed.add(s)
                open_ones.remove(s)
                continue
            buffers[s] += chunk
            while b"\n" in buffers[s]:
                line, buffers[s] = buffers[s].split(b"\n", 1)
                codes.append((json.loads(line).get("error") or {}).get("code"))
    return codes, len(closed)


def cpu_share(pid, seconds):
    start, began = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return (cpu_seconds(pid) - start) / (time.monotonic() - began)


def status_answers(control, failures):
    began = time.monotonic()
    answered = control.call({"op": "status"})
    took = time.monotonic() - began
    check(answered is not None and answered.get("ok") and took < 1, f"control client's status answered in {1000 * took:.1f} ms", failures)


def new_client_served(path, failures):
    fresh = Line(path)
    check(fresh.call({"op": "status"}).get("ok"), "after the clients left, a new client is served", failures)
    fresh.close()


def stop(process, control):
    control.close()
    process.terminate()
    process.wait(timeout=10)


def check(condition, what, failures):
    print(("  ok   " if condition else "  FAIL ") + what)
    if not condition:
        failures.append(what)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--clients", type=int, default=400)
    parser.add_argument("--nofile", type=int, default=256)
    parser.add_argument("--max-cpu", type=float, default=0.10)
    args = parser.parse_args()
    if os.geteuid() == 0 and shutil.which("unshare") and shutil.which("ip") and not os.environ.get("REQD_DESCRIPTORS_NETNS"):
        os.environ["REQD_DESCRIPTORS_NETNS"] = "1"
        command = [sys.executable, *sys.argv]
        os.execvp("unshare", ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", *command])
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * args.clients + 64)), hard))

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hooks)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    hook_url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    failures = []
    work = tempfile.mkdtemp(prefix="reqd-descriptors-")
    try:
        print(f"== 1: default socket.max_connections under --nofile={args.nofile}, {args.clients} clients")
        process, path, control = start_daemon(args, work, "capped", [])
        try:
            cap = control.call({"op": "status"})["result"]["max_connections"]
            expected_cap = max(8, (args.nofile - 64) // 2)
            check(cap == expected_cap, f"status shows max_connections {cap} (expected {expected_cap})", failures)
            clients = open_clients(path, args.clients)
            codes, closed = refusals(clients, 6)
            refused = args.clients - (cap - 1)
            check(codes.count("too_many_connections") == refused and closed == refused,
                  f"{codes.count('too_many_connections')} of {args.clients} got too_many_connections and "
                  f"{closed} were closed (expected {refused} each)", failures)
            share = cpu_share(process.pid, 3)
            check(share < args.max_cpu, f"daemon CPU at the cap: {share:.1%} of a core (under {args.max_cpu:.0%})", failures)
            status_answers(control, failures)
            submitted = control.call({"op": "submit", "method": "POST", "url": hook_url, "body": "capped"})
            deadline = time.monotonic() + 5
            while b"capped" not in Hooks.received and time.monotonic() < deadline:
                time.sleep(0.05)
            check(submitted.get("ok") and b"capped" in Hooks.received, "a submit reached the test HTTP server", failures)
            late, _ = refusals(open_clients(path, 1), 2)
            check(late == ["too_many_connections"], f"a new client got {late}", failures)
            for s in clients:
                s.close()
            time.sleep(0.5)
            new_client_served(path, failures)
        finally:
            stop(process, control)

        print(f"== 2: socket.max_connections above the limit: accepting runs out of descriptors")
        process, path, control = start_daemon(
            args, work, "uncapped", ["--set", "socket.max_connections=100000", "--set", "request.probe_max=1s"])
        try:
            clients = open_clients(path, args.clients)
            time.sleep(1.5)
            share = cpu_share(process.pid, 3)
            check(share < args.max_cpu, f"daemon CPU out of descriptors: {share:.1%} of a core (under {args.max_cpu:.0%})", failures)
            status_answers(control, failures)
            # The daemon's own timer needs no new descriptor: a countdown still expires on time.
            countdown = control.call({"op": "register-countdown", "key": "on-time", "duration_ms": 1000, "ephemeral": True})
            expired = control.call({"op": "wait", "job": countdown["result"]["job"]["id"]})["result"]["job"]
            late = expired.get("late_by_ms", 0)
            check(expired["state"] == "expired" and late < 250,
                  f"a 1 s countdown registered out of descriptors expired {late} ms late", failures)
            submitted = control.call({"op": "submit", "method": "POST", "url": hook_url, "body": "starved"})
            job = submitted["result"]["job"]["id"]
            time.sleep(1.5)
            view = control.call({"op": "status", "job": job})["result"]["job"]
            network = control.call({"op": "status"})["result"]["network"]
            check(b"starved" not in Hooks.received and view["state"] == "active" and network["state"] == "offline",
                  f"a submit without a descriptor is held as in an outage: job {view['state']}, network {network['state']}, "
                  f"{network['unreachable_targets']} unreachable target(s)", failures)
            for s in clients:
                s.close()
            left = time.monotonic()
            # The HTTP client backs off new connections to a target after failed ones (up to tens of
            # seconds after a long run of failures), and the held job's probes meet that backoff.
            deadline = time.monotonic() + 60
            while b"starved" not in Hooks.received and time.monotonic() < deadline:
                time.sleep(0.1)
            ended = control.call({"op": "wait", "job": job})["result"]["job"]
            check(b"starved" in Hooks.received and ended["state"] == "succeeded" and ended["request"]["attempts"] == 1,
                  f"once the clients left, the held submit was delivered {time.monotonic() - left:.1f} s later: "
                  f"{ended['state']} after {ended['request']['attempts']} attempt(s), none spent while held", failures)
            new_client_served(path, failures)
        finally:
            stop(process, control)
        with open(f"{work}/uncapped.log") as f:
            log = f.read()
        warnings = log.count("out of file descriptors: accepting client connections pauses")
        check(warnings == 1, f"{warnings} warning(s) for the episode (expected 1; at most one a minute)", failures)
        check("accepting client connections again" in log, "the end of the episode is logged", failures)
    finally:
        server.shutdown()
        if not failures and not os.environ.get("REQD_KEEP"):
            shutil.rmtree(work, ignore_errors=True)
    if failures:
        print(f"descriptors: FAILED ({len(failures)}); logs in {work}")
        sys.exit(1)
    print("descriptors: OK")


if __name__ == "__main__":
    main()
