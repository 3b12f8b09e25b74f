"""Plays one client of Benchmarks/listen.sh the way a sound card would and measures it: the
player writes WAV to standard output, and this reads its PCM at the byte rate its header
states, in real time, as an output device drains its buffer.

    python3 Benchmarks/listen.py [options] [PLAYER...]

  --fetch COMMAND    a download run beside the player (started first, split on spaces); the
                     file is complete when it exits with status 0
  --after PATH       start the player only once PATH exists and is not empty (a player of the
                     growing file that --fetch writes)
  --complete PATH    the file is complete when PATH exists (the player's own download,
                     renamed into place at its end)
  --first            stop at the first audio
  --watch SECONDS    play for at least SECONDS, and on until the file is complete
  --limit SECONDS    stop after SECONDS in any case (default 60)
  --log FILE         the commands' standard error (default: dropped)

Prints one tab-separated line:
  first_s  complete_s  underruns  stalled_s  silent_s  played_s  note
first_s: from the start (of --fetch, if given) to the first PCM byte after the WAV header;
complete_s: to the complete file ("-" without --fetch or --complete); underruns: times the
  device found its buffer empty, after the first audio, with more than SLACK (0.1 s) of audio
  missing (the device then waits, and plays on as soon as bytes come); stalled_s: the seconds
  it waited in all; silent_s: seconds of PCM that were digital silence, counted in blocks of
  50 ms that are all zero (the benchmark's audio is noise, never silent: a hole played as
  zeros shows here); played_s: seconds of audio read; note: what ended the player, if it
  ended, and when the first underruns began (seconds after the first audio). "nan" stands
  for what did not happen before the limit.
The pipe is 1 MiB (the device's buffer, besides the 0.25 s it reads ahead), so that this
script's own pauses on a busy machine cost the player nothing.
"""
import argparse
import fcntl
import os
import select
import shlex
import signal
import struct
import subprocess
import sys
import time

SLACK = 0.1
AHEAD = 0.25
STEP = 0.01
SILENT_BLOCK = 0.05
F_SETPIPE_SZ = 1031

parser = argparse.ArgumentParser()
parser.add_argument("--fetch")
parser.add_argument("--after")
parser.add_argument("--complete")
parser.add_argument("--first", action="store_true")
parser.add_argument("--watch", type=float, default=0)
parser.add_argument("--limit", type=float, default=60)
parser.add_argument("--log")
parser.add_argument("player", nargs=argparse.REMAINDER)
args = parser.parse_args()
args.player = args.player[1:] if args.player[:1] == ["--"] else args.player
log = open(args.log, "ab") if args.log else subprocess.DEVNULL


class Device:
    """The PCM side: reads the WAV header, then plays the bytes at the rate it states."""

    def __init__(self):
        self.header = b""
        self.rate = None  # bytes per second, once the header is read
        self.block_size = 0  # bytes in SILENT_BLOCK of audio, whole frames
        self.first = None
        self.received = 0
        self.underruns = []  # when each began, in seconds after the first audio
        self.stalled = 0.0
        self.silent_blocks = 0
        self.pending = b""  # PCM not yet looked at for silence (less than a block)
        # The device's clock: at `since` it had played `played` bytes; it plays on at `rate`
        # while `stall` (when it found its buffer empty) is None.
        self.since = None
        self.played = 0
        self.stall = None

    def due(self, now):
        """The bytes the device has played by `now`."""
        if self.since is None:
            return 0
        if self.stall is not None:
            return self.played
        return self.played + (now - self.since) * self.rate

    def wanted(self, now):
        """How many bytes the device takes now: up to AHEAD beyond its position, in steps of
        STEP of audio at least (0 until it has room for one); the header first, in small reads."""
        if self.rate is None:
            return 4096
        room = int(self.due(now) + AHEAD * self.rate - self.received)
        return room if room >= STEP * self.rate else 0

    def take(self, data, now):
        if self.rate is None:
            self.header += data
            data = self.read_header()
            if not data:
                return
        if self.first is None:
            self.first = self.since = now
        if self.stall is not None:
            self.stalled += now - self.stall
            self.stall = None
            self.since = now
        self.received += len(data)
        self.count_silence(data)

    def read_header(self):
        """Reads the RIFF chunks up to `data`: sets the rate and returns the PCM after them
        (b"" while the header is incomplete)."""
        h = self.header
        if len(h) >= 12 and (h[:4] != b"RIFF" or h[8:12] != b"WAVE"):
            raise SystemExit("the player's output is not WAV")
        offset, rate, align = 12, None, None
        while len(h) >= offset + 8:
            name, size = h[offset:offset + 4], struct.unpack("<I", h[offset + 4:offset + 8])[0]
            if name == b"fmt " and len(h) >= offset + 22:
                rate, align = struct.unpack("<I", h[offset + 16:offset + 20])[0], struct.unpack("<H", h[offset + 20:offset + 22])[0]
            if name == b"data":
                if rate is None:
                    raise SystemExit("WAV without a fmt chunk before its data")
                self.rate = rate
                self.block_size = max(1, int(rate * SILENT_BLOCK) // align) * align
                self.header = b""
                return h[offset + 8:]
            offset += 8 + size + (size & 1)
        return b""

    def check(self, now):
        """Counts an underrun when more than SLACK of the audio due has not come."""
        if self.since is None or self.stall is not None:
            return
        if self.received < self.due(now) - SLACK * self.rate:
            self.underruns.append(now - self.first)
            self.played = self.received
            self.stall = now

    def count_silence(self, data):
        block = self.pending + data
        size = self.block_size
        whole = len(block) - len(block) % size
        zero = bytes(size)
        self.silent_blocks += sum(1 for i in range(0, whole, size) if block[i:i + size] == zero)
        self.pending = block[whole:]

    def finish(self, now):
        if self.stall is not None:
            self.stalled += now - self.stall
            self.stall = None


def spawn(command, **kwargs):
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, stderr=log, start_new_session=True, **kwargs)


def stop(process):
    """SIGTERM to its process group, SIGKILL after 5 s."""
    if process is None or process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


# Stopped (listen.sh interrupted), it stops its commands first.
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
start = time.monotonic()
fetch = spawn(shlex.split(args.fetch), stdout=subprocess.DEVNULL) if args.fetch else None
wants_complete = fetch is not None or args.complete is not None
player = None
device = Device()
complete = None
note = ""


def start_player():
    global player
    player = spawn(args.player, stdout=subprocess.PIPE)
    fcntl.fcntl(player.stdout.fileno(), F_SETPIPE_SZ, 1 << 20)
    os.set_blocking(player.stdout.fileno(), False)


def done(elapsed):
    """Whether the measurement is over."""
    if args.first:
        return device.first is not None or ended
    played = not args.player or ended or (device.first is not None and elapsed >= args.watch)
    return played and (not wants_complete or complete is not None)


ended = False
try:
    if args.player and not args.after:
        start_player()
    while True:
        now = time.monotonic()
        elapsed = now - start
        if player is None and args.player and os.path.exists(args.after) and os.path.getsize(args.after) > 0:
            start_player()
        if complete is None and fetch is not None and fetch.poll() is not None:
            complete = elapsed if fetch.returncode == 0 else float("nan")
            note = "" if fetch.returncode == 0 else f"download exit {fetch.returncode}; "
        if complete is None and args.complete and os.path.exists(args.complete):
            complete = elapsed
        if done(elapsed):
            break
        if elapsed >= args.limit:
            note += f"stopped at the {args.limit:.0f} s limit"
            break
        if player is None or ended:
            time.sleep(0.01)
            continue
        want = device.wanted(now)
        if want == 0:
            time.sleep(STEP)
        elif select.select([player.stdout], [], [], 0.01)[0]:
            try:
                data = os.read(player.stdout.fileno(), min(want, 1 << 20))
            except BlockingIOError:
                data = None
            if data == b"":
                ended = True
                device.finish(time.monotonic())
                played = device.received / device.rate if device.rate else 0
                note += f"player ended (exit {player.wait()}) after {played:.1f} s of audio; "
                continue
            if data:
                device.take(data, time.monotonic())
        device.check(time.monotonic())
finally:
    device.finish(time.monotonic())
    stop(player)
    stop(fetch)


if device.underruns:
    more = " ..." if len(device.underruns) > 5 else ""
    note += "underruns at " + ", ".join(f"{t:.1f}" for t in device.underruns[:5]) + more + " s"


def seconds(value):
    return "nan" if value is None else f"{value:.4f}"


print("\t".join([
    seconds(None if device.first is None else device.first - start),
    seconds(complete) if wants_complete else "-",
    str(len(device.underruns)),
    f"{device.stalled:.2f}",
    f"{device.silent_blocks * SILENT_BLOCK:.2f}",
    f"{device.received / device.rate:.1f}" if device.rate else "0",
    note.rstrip("; "),
]))
