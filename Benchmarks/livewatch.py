"""Runs players side by side on a live stream for a while and measures each (for
Benchmarks/radio.sh): the CPU time it took, and its resident memory over time. All start at
once, their output thrown away; after SECONDS each is asked to stop (SIGTERM, then SIGKILL).

    python3 Benchmarks/livewatch.py SECONDS LABEL=COMMAND...

Prints one tab-separated line per player:
    label  cpu_seconds  rss_start_kib  rss_middle_kib  rss_end_kib  peak_rss_kib  ran_to_the_end
cpu_seconds: user + system time of the process and its reaped children (/proc/PID/stat), up to
  SECONDS; rss_*: VmRSS 10 s in (or at a tenth of SECONDS, if sooner), halfway and at the end;
  peak_rss_kib: VmHWM at the end; ran_to_the_end: 1 when it still ran at SECONDS.
RSS is sampled every second; each player's goes to standard error once a minute.
"""
import os
import shlex
import signal
import subprocess
import sys
import time

seconds = float(sys.argv[1])
clients = [arg.split("=", 1) for arg in sys.argv[2:]]
ticks = os.sysconf("SC_CLK_TCK")


def status(pid, field):
    """A field of /proc/PID/status in KiB, or None once the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def cpu(pid):
    """User + system seconds of the process and its reaped children, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # utime, stime, cutime, cstime are fields 14-17; fields[0] is field 3 (state).
    return sum(int(v) for v in fields[11:15]) / ticks


def running(process):
    return process.poll() is None


processes = [
    subprocess.Popen(shlex.split(command), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _, command in clients
]
start = time.monotonic()
marks = {"start": min(10.0, seconds / 10), "middle": seconds / 2}
samples = {label: {} for label, _ in clients}
last_cpu = {label: 0.0 for label, _ in clients}
next_log = 60.0
while True:
    elapsed = time.monotonic() - start
    for (label, _), process in zip(clients, processes):
        if not running(process):
            continue
        used = cpu(process.pid)
        if used is not None:
            last_cpu[label] = used
        rss = status(process.pid, "VmRSS")
        for mark, at in marks.items():
            if elapsed >= at and mark not in samples[label] and rss is not None:
                samples[label][mark] = rss
    if elapsed >= next_log:
        line = "  ".join(f"{label} {status(p.pid, 'VmRSS') or 0} KiB" for (label, _), p in zip(clients, processes) if running(p))
        print(f"  {elapsed / 60:4.0f} min: {line}", file=sys.stderr, flush=True)
        next_log += 60
    if elapsed >= seconds:
        break
    time.sleep(min(1.0, seconds - elapsed))

for (label, _), process in zip(clients, processes):
    alive = running(process)
    used = cpu(process.pid) if alive else None
    rss_end = status(process.pid, "VmRSS") if alive else None
    peak = status(process.pid, "VmHWM") if alive else None
    if used is not None:
        last_cpu[label] = used
    s = samples[label]
    print("\t".join(str(v) for v in [
        label, f"{last_cpu[label]:.2f}", s.get("start", 0), s.get("middle", 0), rss_end or 0, peak or 0, int(alive)]))
for process in processes:
    if running(process):
        process.send_signal(signal.SIGTERM)
deadline = time.monotonic() + 5
for process in processes:
    try:
        process.wait(timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
