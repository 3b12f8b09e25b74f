"""The measurements of Benchmarks/daemon.sh, one case of one server per call, and its table.

  daemon.py run CASE KIND COMMAND... -- appends one line to $results: case, client, then the
                                        case's numbers (see METRICS), ok (1 or 0)
  daemon.py report RESULTS --runs N  -- the table: medians per case and client, and the ratio
                                        of the daemon to aria2c measured in the same run

The server is started here (COMMAND gets --rpc-listen-port, --rpc-secret and -d added), on a
free loopback port, and stopped at the end. Environment: BASE (the nginx's URL), FILES (its
folder), WORK (a scratch folder), SHA_1G (the 1 GiB file's sha256).
"""

import hashlib
import http.client
import json
import os
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

TICK = os.sysconf("SC_CLK_TCK")
POLLS = 60
ROUNDS = 10  # the polls run ROUNDS times over, for a CPU time well above /proc's 10 ms ticks
ACTIVE = 100
WAITING = 10_000
BATCH = 1_000

# The numbers each case reports, in order, with their units.
METRICS = {
    "multicall": [("wall s", "wall"), ("server CPU s", "cpu")],
    "poll": [("active", "active"), ("CPU s / 60 polls", "cpu"), ("of it idle", "idle"), ("net CPU s", "net")],
    "idle": [("RSS MiB", "rss"), ("VmHWM MiB", "hwm")],
    "waiting": [("add s", "wall"), ("RSS MiB", "rss"), ("VmHWM MiB", "hwm")],
    "big": [("wall s", "wall"), ("server CPU s", "cpu"), ("VmHWM MiB", "hwm")],
}
TITLES = {
    "multicall": f"(1) {BATCH} addUri (paused) in one system.multicall",
    "poll": f"(2) a UI's polling with {ACTIVE} downloads added, each at 4 KiB/s (\"active\": how many "
            f"the server runs at once): {POLLS} polls of tellActive + tellWaiting(0,1000) + "
            "tellStopped(-1,1000) + getGlobalStat",
    "idle": "(3) idle memory after start",
    "waiting": f"(4) memory with {WAITING} waiting downloads (added paused, {BATCH} per multicall)",
    "big": "(5) a 1 GiB download through RPC (-x8 -s8), added until complete",
}


class Server:
    def __init__(self, kind, command):
        self.kind = kind
        self.port = free_port()
        self.secret = secrets.token_hex(12)
        self.dir = tempfile.mkdtemp(prefix=f"{kind}-", dir=os.environ["WORK"])
        self.log = open(os.path.join(self.dir, "..", f"{kind}-{self.port}.log"), "wb")
        arguments = command + [f"--rpc-listen-port={self.port}", f"--rpc-secret={self.secret}", "-d", self.dir]
        self.process = subprocess.Popen(arguments, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while not answers(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{kind} did not start: {' '.join(arguments)}")
            time.sleep(0.02)
        self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)

    def post(self, payload):
        body = json.dumps(payload).encode()
        self.connection.request("POST", "/jsonrpc", body, {"Content-Type": "application/json"})
        answer = self.connection.getresponse()
        return json.loads(answer.read())

    def call(self, method, *params):
        answer = self.post({"jsonrpc": "2.0", "id": "b", "method": method, "params": [f"token:{self.secret}", *params]})
        if "error" in answer:
            raise SystemExit(f"{self.kind}: {method}: {answer['error']}")
        return answer["result"]

    def multicall(self, calls):
        token = f"token:{self.secret}"
        return self.call_raw("system.multicall", [[{"methodName": m, "params": [token, *p]} for m, p in calls]])

    def call_raw(self, method, params):
        answer = self.post({"jsonrpc": "2.0", "id": "b", "method": method, "params": params})
        if "error" in answer:
            raise SystemExit(f"{self.kind}: {method}: {answer['error']}")
        return answer["result"]

    def cpu(self):
        fields = open(f"/proc/{self.process.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime

    def memory(self):
        status = dict(line.split(":", 1) for line in open(f"/proc/{self.process.pid}/status"))
        return int(status["VmRSS"].split()[0]) / 1024, int(status["VmHWM"].split()[0]) / 1024

    def stop(self):
        self.connection.close()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def wait(predicate, limit, what):
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"waited {limit} s for {what}")
        time.sleep(0.05)


def paused_adds(server, count, start=0):
    base = os.environ["BASE"]
    calls = [("aria2.addUri", [[f"{base}/files/nothing/{start + i}.bin"], {"pause": "true"}]) for i in range(count)]
    results = server.multicall(calls)
    return all(isinstance(r, list) and len(r) == 1 for r in results) and len(results) == count


def case_multicall(server):
    cpu = server.cpu()
    started = time.perf_counter()
    ok = paused_adds(server, BATCH)
    wall = time.perf_counter() - started
    ok = ok and len(server.call("aria2.tellWaiting", 0, 2 * BATCH, ["gid"])) == BATCH
    return {"wall": wall, "cpu": server.cpu() - cpu}, ok


def case_poll(server):
    base = os.environ["BASE"]
    # One connection each: 100 downloads, 100 connections.
    options = {"split": "1", "max-connection-per-server": "1"}
    calls = [("aria2.addUri", [[f"{base}/rate/poll.bin?rate=4k&n={i}"], dict(options, out=f"p{i}.bin")])
             for i in range(ACTIVE)]
    server.multicall(calls)
    # All 100 active, or as many as the server runs at once to one host (the "active" column):
    # the count that holds for two seconds.
    seen = []

    def settled():
        seen.append(int(server.call("aria2.getGlobalStat")["numActive"]))
        return seen[-1] == ACTIVE or (len(seen) > 40 and len(set(seen[-40:])) == 1 and seen[-1] > 0)

    wait(settled, 60, f"{ACTIVE} active downloads, or a steady count")
    active = seen[-1]
    wait(lambda: all(s["totalLength"] != "0" for s in server.call("aria2.tellActive", ["totalLength"])), 60,
         "every active download's length")
    # The daemon's CPU while it only downloads, over as long as the polls take (measured first).
    polls = [("aria2.tellActive", []), ("aria2.tellWaiting", [0, 1000]), ("aria2.tellStopped", [-1, 1000]),
             ("aria2.getGlobalStat", [])]
    cpu = server.cpu()
    started = time.perf_counter()
    for _ in range(POLLS * ROUNDS):
        for method, params in polls:
            server.call(method, *params)
    spent = time.perf_counter() - started
    polled = server.cpu() - cpu
    cpu = server.cpu()
    time.sleep(max(spent, 1.0))
    idle = (server.cpu() - cpu) * spent / max(spent, 1.0)
    ok = int(server.call("aria2.getGlobalStat")["numActive"]) == active
    return {"active": active, "cpu": polled / ROUNDS, "idle": idle / ROUNDS, "net": (polled - idle) / ROUNDS}, ok


def case_idle(server):
    time.sleep(1.0)  # what it holds once started and settled, not while it starts
    rss, hwm = server.memory()
    return {"rss": rss, "hwm": hwm}, True


def case_waiting(server):
    started = time.perf_counter()
    ok = all(paused_adds(server, BATCH, start) for start in range(0, WAITING, BATCH))
    wall = time.perf_counter() - started
    ok = ok and int(server.call("aria2.getGlobalStat")["numWaiting"]) == WAITING
    rss, hwm = server.memory()
    return {"wall": wall, "rss": rss, "hwm": hwm}, ok


def case_big(server):
    base = os.environ["BASE"]
    cpu = server.cpu()
    started = time.perf_counter()
    gid = server.call("aria2.addUri", [f"{base}/files/1g.bin"], {"out": "1g.bin"})
    status = {}

    def done():
        status.update(server.call("aria2.tellStatus", gid, ["status", "errorCode"]))
        return status["status"] in ("complete", "error", "removed")

    wait(done, 600, "the 1 GiB download")
    wall = time.perf_counter() - started
    used = server.cpu() - cpu
    _, hwm = server.memory()
    path = os.path.join(server.dir, "1g.bin")
    ok = status["status"] == "complete" and sha256(path) == os.environ.get("SHA_1G")
    return {"wall": wall, "cpu": used, "hwm": hwm}, ok


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def run(case, kind, command):
    server = Server(kind, command)
    try:
        numbers, ok = globals()[f"case_{case}"](server)
    finally:
        server.stop()
    values = [f"{numbers[key]:.4f}" for _, key in METRICS[case]]
    with open(os.environ["results"], "a") as results:
        results.write("\t".join([case, kind, *values, "1" if ok else "0"]) + "\n")
    print(f"  {case} {kind}: " + ", ".join(f"{label} {numbers[key]:.3f}" for label, key in METRICS[case])
          + f" ok={int(ok)}", file=sys.stderr)


def report(path, runs):
    rows = defaultdict(list)
    order = []
    for line in open(path):
        case, client, *values, ok = line.rstrip("\n").split("\t")
        if (case, client) not in rows:
            order.append((case, client))
        rows[(case, client)].append(([float(v) for v in values], int(ok)))
    print(f"Medians of {runs} runs; ratio: slipstream daemon / aria2c (below 1.00 is better; target "
          "at most 1.00).\n")
    for case in dict.fromkeys(c for c, _ in order):
        metrics = METRICS[case]
        print(f"### {TITLES[case]}\n")
        print("| client | " + " | ".join(label for label, _ in metrics) + " | ok |")
        print("|---|" + "---:|" * len(metrics) + "---|")
        medians = {}
        for c, client in order:
            if c != case:
                continue
            got = rows[(case, client)]
            medians[client] = [statistics.median(v[i] for v, _ in got) for i in range(len(metrics))]
            ok = sum(o for _, o in got)
            print(f"| {client} | " + " | ".join(f"{m:.3f}" for m in medians[client]) + f" | {ok}/{len(got)} |")
        ours = next((m for k, m in medians.items() if k.startswith("slipstream")), None)
        theirs = medians.get("aria2c")
        if ours and theirs:
            ratios = [f"{o / t:.2f}" if t > 0 else "-" for o, t in zip(ours, theirs)]
            print("| ratio | " + " | ".join(ratios) + " | |")
        print()


if __name__ == "__main__":
    if sys.argv[1] == "run":
        split = sys.argv.index("--") if "--" in sys.argv else len(sys.argv)
        run(sys.argv[2], sys.argv[3], sys.argv[4:split])
    elif sys.argv[1] == "report":
        report(sys.argv[2], int(sys.argv[4]) if len(sys.argv) > 4 else 3)
