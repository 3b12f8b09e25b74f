"""Prints the tables of Benchmarks/listen.sh from the lines it wrote ("format client measure
value"): medians per client and format, the ratios the issue's targets are about, and what
each client did that the figures do not show (its notes).

    python3 Benchmarks/listenreport.py RESULTS --runs N --minutes M --seek 45:00
"""
import argparse
import math
import statistics
from collections import defaultdict

parser = argparse.ArgumentParser()
parser.add_argument("results")
parser.add_argument("--runs", type=int, default=3)
parser.add_argument("--minutes", type=int, default=60)
parser.add_argument("--seek", default="45:00")
args = parser.parse_args()

values = defaultdict(list)
notes = defaultdict(list)
clients = defaultdict(list)
for line in open(args.results):
    fmt, client, measure, value = line.rstrip("\n").split("\t", 3)
    if measure == "note":
        notes[(fmt, client)].append(value)
        continue
    if client != "-" and client not in clients[fmt]:
        clients[fmt].append(client)
    values[(fmt, client, measure)].append(math.nan if value in ("nan", "-") else float(value))

GET = "slipstream get -n 8"
PLAY = "slipstream play URL"
TITLES = {
    "mp3": f"{args.minutes}-minute MP3, 320 kbit/s CBR",
    "flac": f"{args.minutes}-minute FLAC, 192 kHz 24-bit stereo noise",
}


def median(fmt, client, measure):
    """The median of the runs that gave a figure (nan when none did), and how many did not."""
    data = values.get((fmt, client, measure), [])
    good = [v for v in data if not math.isnan(v)]
    return (statistics.median(good) if good else math.nan), len(data) - len(good), len(data)


def cell(fmt, client, measure, scale=1.0, digits=1):
    m, missing, count = median(fmt, client, measure)
    if count == 0:
        return "n/a"
    if math.isnan(m):
        return "none"
    text = f"{m * scale:.{digits}f}"
    return text + (f" ({missing} of {count} none)" if missing else "")


def ratio(a, b):
    return a / b if b and not math.isnan(a) and not math.isnan(b) else math.nan


def verdict(ok):
    return "met" if ok else "MISSED"


print(f"Medians of {args.runs} runs; each connection held to 1.5x the file's bit rate, 8 connections"
      " where the client opens several. First audio and seeks: start to the first PCM byte of WAV on a"
      " pipe read in real time. The clients of a format ran side by side for the complete file and"
      " the underruns.\n")
keep_clients = []
for fmt in clients:
    rate, _, _ = median(fmt, "-", "rate")
    load = values.get((fmt, "-", "load"), [])
    print(f"### {TITLES.get(fmt, fmt)}, {rate / (1 << 20):.3f} MiB/s per connection\n")
    print(f"Load average at the start of each round: {', '.join(f'{v:.1f}' for v in load)}\n")
    get_complete, _, _ = median(fmt, GET, "complete")
    print(f"| client | first audio ms | requests | seek to {args.seek} ms | requests | complete s | vs get -n 8 |"
          " exact | heard s | underruns | stalled s | silent s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for client in clients[fmt]:
        complete, _, count = median(fmt, client, "complete")
        exact = values.get((fmt, client, "exact"), [])
        print("| " + " | ".join([
            client,
            cell(fmt, client, "first", 1000),
            cell(fmt, client, "first_requests", digits=0),
            cell(fmt, client, "seek", 1000),
            cell(fmt, client, "seek_requests", digits=0),
            cell(fmt, client, "complete", digits=2),
            f"{ratio(complete, get_complete):.3f}x" if client != GET and not math.isnan(ratio(complete, get_complete)) else "",
            f"{int(sum(exact))}/{len(exact)}" if exact else "",
            cell(fmt, client, "heard", digits=1),
        ] + (["no audio"] * 3 if median(fmt, client, "heard")[0] == 0 else [
            cell(fmt, client, "underruns", digits=0),
            cell(fmt, client, "stalled", digits=2),
            cell(fmt, client, "silent", digits=2),
        ])) + " |")
    print()
    for client in clients[fmt]:
        if (fmt, client, "fetched") in values:
            print(f"- {client}, again once FILE is complete, `--start {args.seek}` (a seek into fetched bytes):"
                  f" {cell(fmt, client, 'fetched', 1000)} ms, {cell(fmt, client, 'fetched_requests', digits=0)} requests")
    for client, texts in ((c, notes[(fmt, c)]) for c in clients[fmt] if notes[(fmt, c)]):
        for text in dict.fromkeys(texts):
            print(f"- {client}: {text}" + (f" ({texts.count(text)} times)" if texts.count(text) > 1 else ""))
    print()
    print("Targets:\n")
    keeps = [c for c in clients[fmt] if "--keep" in c]
    if not keeps:
        print("- n/a: this binary's `play` has no `--keep` yet\n")
    for client in keeps:
        prefix = "before: " if client.startswith("before: ") else ""
        first = median(fmt, client, "first")[0]
        play_first = median(fmt, prefix + PLAY, "first")[0]
        r = ratio(first, play_first)
        print(f"- {client}: first audio {first * 1000:.1f} ms, {r:.2f}x `{prefix}play URL`'s"
              f" (target <= 1.00x): {verdict(r <= 1.0)}")
        fetched, _, count = median(fmt, client, "fetched")
        if count:
            print(f"- {client}: seek into fetched bytes {fetched * 1000:.1f} ms (target < 50 ms): {verdict(fetched < 0.05)}")
        else:
            print(f"- {client}: seek into fetched bytes: n/a (FILE was never complete and exact)")
        seek = median(fmt, client, "seek")[0]
        mpv_seeks = [m for m in (median(fmt, c, "seek")[0] for c in clients[fmt] if c.startswith("mpv")) if not math.isnan(m)]
        r = ratio(seek, min(mpv_seeks, default=math.nan))
        print(f"- {client}: seek ahead to {args.seek} {seek * 1000:.1f} ms, {r:.2f}x mpv's best"
              f" (target < 2x): {verdict(not math.isnan(seek) and (r < 2 or not mpv_seeks))}" + ("" if mpv_seeks else " (mpv never got there)"))
        complete = median(fmt, client, "complete")[0]
        r = ratio(complete, get_complete)
        print(f"- {client}: complete file {complete:.2f} s, {r:.3f}x `get -n 8` alone (target <= 1.05x): {verdict(r <= 1.05)}")
        underruns = values.get((fmt, client, "underruns"), [])
        heard = all(v > 0 for v in values.get((fmt, client, "heard"), []))
        print(f"- {client}: underruns {int(sum(underruns))} in {len(underruns)} runs (target none): "
              + (verdict(sum(underruns) == 0) if heard else "MISSED (no audio in a run)"))
    print()
