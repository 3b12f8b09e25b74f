"""Prints the benchmark table from the lines download.sh wrote: medians per client and case,
and the ratio of each slipstream row to each peer in the same case (below 1.00 is faster)."""
import argparse
import statistics
from collections import defaultdict

MIB = 1 << 20
RATE = 20 * MIB  # per connection in case (b)
SIZE_B = 256 * MIB

parser = argparse.ArgumentParser()
parser.add_argument("results")
parser.add_argument("--runs", type=int, default=3)
args = parser.parse_args()

rows = defaultdict(list)
order = []
for line in open(args.results):
    case, client, wall, cpu, rss, ok = line.rstrip("\n").split("\t")
    if (case, client) not in rows:
        order.append((case, client))
    rows[(case, client)].append((float(wall), float(cpu), int(rss), int(ok)))

titles = {
    "a": "(a) 1 GiB, unthrottled",
    "b1": "(b) 256 MiB, 20 MiB/s per connection, N = 1",
    "b4": "(b) 256 MiB, 20 MiB/s per connection, N = 4",
    "b8": "(b) 256 MiB, 20 MiB/s per connection, N = 8",
    "b16": "(b) 256 MiB, 20 MiB/s per connection, N = 16",
    "c": "(c) 256 MiB, 8 connections, one in five at 1 MiB/s (rest 20 MiB/s)",
    "m": "(mirrors.sh m) 256 MiB from two mirrors: 20 MiB/s and 2 MiB/s per connection, 8 connections",
    "r": "(ratelimit.sh r) 64 MiB at a limit of 8 MiB/s",
    "o": "(stdout.sh o) 256 MiB, 20 MiB/s per connection, 8 connections, to a file and through a pipe",
    "q": "(queue.sh) 1000 files of 64 KiB, 16 at a time",
    "ftp": "(ftp.sh f) FTP (pyftpdlib), 8 connections at 8 MiB/s each",
    "sftp": "(ftp.sh s) SFTP (sshd through a relay), 8 connections at 8 MiB/s each",
    "h2": "(hls.sh h2) 60-minute HLS VOD, 2 s MPEG-TS segments, 1 MiB/s per connection",
    "h6": "(hls.sh h6) 60-minute HLS VOD, 6 s MPEG-TS segments, 1 MiB/s per connection",
    "s": "(resume.sh b) 256 MiB, 8 connections, one in ten stalled, one in five at 1 MiB/s (rest 20 MiB/s)",
}

# Cases whose slipstream rows are also compared with one slipstream row: the target is a
# ratio to it (mirrors: within 5% of the fast mirror alone; -o -: 90% of the speed to a file).
REFERENCES = {"m": "slipstream fast alone", "o": "slipstream -o FILE"}

print(f"Medians of {args.runs} runs; ratios are slipstream / peer (wall, CPU).\n")
for case in dict.fromkeys(c for c, _ in order):
    clients = [cl for c, cl in order if c == case]
    print(f"### {titles.get(case, case)}\n")
    ideal = None
    if case.startswith("b"):
        n = int(case[1:])
        ideal = SIZE_B / (n * RATE)
        print(f"ideal time size / (N x rate) = {ideal:.2f} s\n")
    elif case == "m":
        ideal = SIZE_B / (8 * RATE)
        print(f"ideal with the fast mirror alone: 256 MiB / (8 x 20 MiB/s) = {ideal:.2f} s\n")
    elif case == "o":
        ideal = SIZE_B / (8 * RATE)
        print(f"ideal time size / (8 x rate) = {ideal:.2f} s; target: -o - at least 90% of the speed to a file\n")
    elif case == "r":
        ideal = 64 * MIB / (8 * MIB)
        print(f"time at the limit = {ideal:.2f} s; target: within 5%\n")
    print("| client | wall s | CPU s | peak RSS MiB | sha256 ok | vs ideal |")
    print("|---|---|---|---|---|---|")
    medians = {}
    for client in clients:
        data = rows[(case, client)]
        wall = statistics.median(d[0] for d in data)
        cpu = statistics.median(d[1] for d in data)
        rss = max(d[2] for d in data) / 1024
        ok = sum(d[3] for d in data)
        medians[client] = (wall, cpu)
        vs_ideal = f"{ideal / wall * 100:.{1 if case == 'r' else 0}f}% of ideal rate" if ideal else ""
        print(f"| {client} | {wall:.3f} | {cpu:.2f} | {rss:.1f} | {ok}/{len(data)} | {vs_ideal} |")
    print()
    for client in clients:
        if not client.startswith("slipstream"):
            continue
        parts = []
        for peer in clients:
            if peer.startswith("slipstream"):
                continue
            w = medians[client][0] / medians[peer][0]
            c = medians[client][1] / medians[peer][1] if medians[peer][1] > 0 else float("nan")
            parts.append(f"vs {peer}: wall {w:.3f}x, CPU {c:.2f}x")
        print(f"- {client}: " + "; ".join(parts))
    reference = REFERENCES.get(case)
    if reference in medians:
        for client in clients:
            if client.startswith("slipstream") and client != reference:
                ratio = medians[client][0] / medians[reference][0]
                print(f"- {client} vs {reference}: wall {ratio:.3f}x ({100 / ratio:.0f}% of its speed)")
    print()
