#!/usr/bin/env python3
"""Times one start of reqd on a copy of a state directory until it sends READY=1.

Usage: bench/ready.py REQD STATE_DIR WORK_DIR
Copies STATE_DIR to WORK_DIR (removing what was there), starts REQD on it with NOTIFY_SOCKET set,
waits for READY=1 (at most 120 s), stops it with SIGTERM, and prints the seconds to READY=1 and the
store.read_ms and store.restore_ms of its "store opened" line, then its RSS at READY=1 and the CPU
seconds each of its threads had used by then (those above 0.05 s, busiest first). Builds that restore while they read
log store.restored_ms instead, counted from opening the store as store.read_ms is. Alternate two builds on one state
directory to compare their restores without each build's own fill in between.
"""
import os, re, shutil, signal, socket, subprocess, sys, time

binary, store, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
shutil.copytree(store, work)
notify = os.path.join(work, "notify.sock")
listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
listener.bind(notify)
listener.settimeout(120)
start = time.monotonic()
daemon = subprocess.Popen(
    [binary, "--socket", os.path.join(work, "reqd.sock"), "--state-dir", work, "--log-level", "info",
     "--log-target", "stderr", "--set", "jobs.max_active=5000000", "--set", "jobs.max_retained=2000000"],
    env=dict(os.environ, NOTIFY_SOCKET=notify), stderr=subprocess.PIPE, text=True)
while "READY=1" not in listener.recv(4096).decode():
    pass
ready = time.monotonic() - start
rss = next(line.split()[1] for line in open(f"/proc/{daemon.pid}/status") if line.startswith("VmRSS"))
threads = []
for task in os.listdir(f"/proc/{daemon.pid}/task"):
    stat = open(f"/proc/{daemon.pid}/task/{task}/stat").read()
    fields = stat[stat.rindex(")") + 2:].split()
    seconds = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    if seconds > 0.05:
        threads.append((seconds, stat[stat.index("(") + 1:stat.rindex(")")]))
daemon.send_signal(signal.SIGTERM)
_, log = daemon.communicate(timeout=60)
opened = re.search(r"store\.read_ms=(\d+).*store\.restored?_ms=(\d+)", log)
print(f"{ready:.2f}", *(opened.groups() if opened else ("-", "-")), f"rss={int(rss) // 1024}MB",
      " ".join(f"{name}:{seconds:.2f}" for seconds, name in sorted(threads, reverse=True)))
shutil.rmtree(work, ignore_errors=True)
