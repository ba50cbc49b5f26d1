#!/usr/bin/env python3
"""Network outage test of the durable queue: an unreachable target holds jobs, it costs no attempts.

It makes two network namespaces joined by a veth pair: reqd runs in one, an HTTP server that
logs every request's Idempotency-Key in the other. Nothing else is reachable from either. Then:

1. it deletes the route to the server, so connecting fails at once with ENETUNREACH;
2. it submits jobs with `reqd-client submit --max-attempts 2` and a short backoff, so any
   attempt spent on the outage would show, and waits;
3. it checks that `reqd-client status` says offline with every job held, that each job has spent
   no attempt, and that the server saw nothing;
4. it restores the route between two timed probes, so only the netlink notice can bring the jobs
   back in time, and checks that every job is delivered within 2 s, spread rather than in one
   burst, each after exactly one attempt;
5. a job for a host name is held as well, since no DNS server is reachable from the namespace
   (EAI_AGAIN); it stays held after the route returns, and cancelling it leaves the daemon online.

Needs root (ip netns). Usage: tests/outage/outage-test.py --bin DIR [--jobs 30]
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SERVER = r"""
import sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# print() writes its arguments separately: one lock and one write keep the threads' lines whole.
output = threading.Lock()

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        line = f"{self.headers.get('Idempotency-Key', '-')} {time.monotonic()}\n"
        with output:
            sys.stdout.write(line)
            sys.stdout.flush()
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")
    def log_message(self, *args):
        pass

server = ThreadingHTTPServer((sys.argv[1], int(sys.argv[2])), Handler)
print("ready", flush=True)
server.serve_forever()
"""

SUBNET = "10.213.77"
DAEMON_ADDRESS = f"{SUBNET}.1"
TARGET_ADDRESS = f"{SUBNET}.2"
PORT = 8080


def run(*command, check=True):
    return subprocess.run(command, check=check, capture_output=True, text=True)


def fail(message):
    raise SystemExit(f"outage-test: FAIL: {message}")


class Namespaces:
    """Two namespaces and a veth pair, removed again on exit."""

    def __init__(self):
        tag = os.getpid() % 100000
        self.daemon = f"reqd-od-{tag}"
        self.target = f"reqd-ot-{tag}"
        self.daemon_link = f"rqd{tag}"
        self.target_link = f"rqt{tag}"

    def __enter__(self):
        run("ip", "netns", "add", self.daemon)
        run("ip", "netns", "add", self.target)
        run("ip", "link", "add", self.daemon_link, "netns", self.daemon, "type", "veth",
            "peer", "name", self.target_link, "netns", self.target)
        for namespace, link, address in [(self.daemon, self.daemon_link, DAEMON_ADDRESS),
                                         (self.target, self.target_link, TARGET_ADDRESS)]:
            run("ip", "-n", namespace, "link", "set", "lo", "up")
            run("ip", "-n", namespace, "addr", "add", f"{address}/24", "dev", link)
            run("ip", "-n", namespace, "link", "set", link, "up")
        return self

    def __exit__(self, *exc):
        run("ip", "netns", "del", self.daemon, check=False)
        run("ip", "netns", "del", self.target, check=False)

    def delete_route(self):
        run("ip", "-n", self.daemon, "route", "del", f"{SUBNET}.0/24", "dev", self.daemon_link)

    def restore_route(self):
        run("ip", "-n", self.daemon, "route", "add", f"{SUBNET}.0/24", "dev", self.daemon_link, "src", DAEMON_ADDRESS)


def client(binary, socket_path, *arguments):
    result = subprocess.run([binary, "--socket", socket_path, *arguments], capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        fail(f"reqd-client {' '.join(arguments)} exited {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def status(binary, socket_path, job=None):
    return json.loads(client(binary, socket_path, "status", "--json", *([job] if job else [])))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True, help="the directory holding reqd and reqd-client")
    parser.add_argument("--jobs", type=int, default=30)
    options = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("outage-test: needs root for ip netns")
    reqd = os.path.join(options.bin, "reqd")
    reqd_client = os.path.join(options.bin, "reqd-client")
    directory = tempfile.mkdtemp(prefix="reqd-outage-")
    socket_path = os.path.join(directory, "reqd.sock")
    processes = []
    try:
        with Namespaces() as namespaces:
            server = subprocess.Popen(
                ["ip", "netns", "exec", namespaces.target, sys.executable, "-c", SERVER, TARGET_ADDRESS, str(PORT)],
                stdout=subprocess.PIPE)
            processes.append(server)
            if server.stdout.readline().strip() != b"ready":
                fail("the target server did not start")
            log = open(os.path.join(directory, "reqd.log"), "wb")
            daemon = subprocess.Popen(
                ["ip", "netns", "exec", namespaces.daemon, reqd, "--socket", socket_path,
                 "--state-dir", os.path.join(directory, "state"), "--log-target", "stderr", "--log-level", "info",
                 "--set", "request.backoff_min=100ms", "--set", "request.backoff_max=200ms",
                 "--set", "request.probe_max=30s", "--set", "request.dedupe_window=0s"],
                stdout=subprocess.DEVNULL, stderr=log)
            processes.append(daemon)
            deadline = time.monotonic() + 20
            while not os.path.exists(socket_path):
                if daemon.poll() is not None or time.monotonic() > deadline:
                    fail("reqd did not start")
                time.sleep(0.02)
            url = f"http://{TARGET_ADDRESS}:{PORT}/orders"

            # The route works: one job goes through.
            client(reqd_client, socket_path, "submit", "POST", url, "--data", "warm-up", "--wait")

            namespaces.delete_route()
            jobs = []
            for index in range(options.jobs):
                out = client(reqd_client, socket_path, "submit", "POST", url, "--data", f"order {index}",
                             "--max-attempts", "2", "--backoff", "100ms..200ms", "--json")
                jobs.append(json.loads(out)["job"]["id"])
            first_held = time.monotonic()
            # A name that cannot be resolved for now (no route to any DNS server here) is held too.
            dns_job = json.loads(client(reqd_client, socket_path, "submit", "POST", "http://reqd-outage-test.example:8080/",
                                        "--max-attempts", "2", "--backoff", "100ms..200ms", "--json"))["job"]["id"]
            # Two attempts with 100-200 ms backoff would be spent well within this wait.
            time.sleep(1.5)
            summary = status(reqd_client, socket_path)
            network = summary["network"]
            print(f"outage-test: while the route is gone: {network}")
            if network["state"] != "offline" or network["held_jobs"] != options.jobs + 1 or network["unreachable_targets"] != 2:
                fail(f"the daemon should be offline with {options.jobs + 1} held jobs for 2 targets, got {network}")
            for job in jobs + [dns_job]:
                view = status(reqd_client, socket_path, job)["job"]
                request = view["request"]
                if view["state"] != "active" or request["attempts"] != 0 or not request.get("held"):
                    fail(f"{job} should be active and held with 0 attempts, got {view['state']}, {request}")
            human = client(reqd_client, socket_path, "status")
            if "network: offline" not in human:
                fail(f"`reqd-client status` should say offline:\n{human}")

            # Timed probes come 1 s, 3 s and 7 s after the first hold: restore between the last two,
            # so that resuming within 2 s needs the netlink notice.
            time.sleep(max(0, first_held + 3.6 - time.monotonic()))
            namespaces.restore_route()
            restored = time.monotonic()

            arrivals = {}
            server_deadline = restored + 10
            os.set_blocking(server.stdout.fileno(), False)
            pending = ""
            while len(arrivals) < options.jobs + 1 and time.monotonic() < server_deadline:
                try:
                    chunk = os.read(server.stdout.fileno(), 65536).decode()
                except BlockingIOError:
                    chunk = ""
                pending += chunk
                *lines, pending = pending.split("\n")
                for line in lines:
                    fields = line.split()
                    if len(fields) != 2:
                        fail(f"the server logged a line that is not 'key time': {line!r}")
                    key, at = fields
                    arrivals.setdefault(key, []).append(float(at))
                if not chunk:
                    time.sleep(0.02)
            delivered = {key: times for key, times in arrivals.items() if key in jobs}
            if set(delivered) != set(jobs):
                fail(f"{len(set(jobs) - set(delivered))} of {options.jobs} jobs were not delivered after the route came back")
            times = sorted(t for key in jobs for t in delivered[key])
            first, last = times[0] - restored, times[-1] - restored
            print(f"outage-test: after the route came back: first delivery {first * 1000:.0f} ms, "
                  f"last {last * 1000:.0f} ms, spread over {(last - first) * 1000:.0f} ms")
            if last > 2.0:
                fail(f"the last held job arrived {last:.2f} s after the route came back; the target is 2 s")
            if last - first < 0.3:
                fail(f"the held jobs arrived in one burst ({(last - first) * 1000:.0f} ms apart)")
            for job in jobs:
                # The server logs a request before it answers: give the answer a moment to land.
                settle = time.monotonic() + 5
                view = status(reqd_client, socket_path, job)["job"]
                while view["state"] == "active" and time.monotonic() < settle:
                    time.sleep(0.05)
                    view = status(reqd_client, socket_path, job)["job"]
                attempts = view.get("request", {}).get("attempts")
                if view["state"] != "succeeded" or attempts != 1:
                    fail(f"{job} should have succeeded on its one attempt, got {view['state']} after {attempts}")
                if len(delivered[job]) != 1:
                    fail(f"{job} reached the server {len(delivered[job])} times")
            # DNS is still unreachable: that job is still held, with no attempt spent; cancelling it ends the hold.
            request = status(reqd_client, socket_path, dns_job)["job"]["request"]
            if not request.get("held") or request["attempts"] != 0:
                fail(f"the job for an unresolvable name should still be held with 0 attempts, got {request}")
            client(reqd_client, socket_path, "cancel", dns_job)
            network = status(reqd_client, socket_path)["network"]
            if network["state"] != "online":
                fail(f"the daemon should be online again, got {network}")
            log.flush()
            journal = open(os.path.join(directory, "reqd.log"), errors="replace").read()
            if "is unreachable" not in journal or "answers again" not in journal:
                fail(f"the log should say when the target went and came back:\n{journal[-2000:]}")
            print(f"outage-test: OK: {options.jobs} jobs held with 0 attempts spent, all delivered once "
                  f"{last * 1000:.0f} ms after the route came back")
    finally:
        for process in reversed(processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
        if os.environ.get("KEEP"):
            print(f"outage-test: kept {directory}")
        else:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
