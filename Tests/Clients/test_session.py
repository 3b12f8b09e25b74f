"""Downloads survive restarts: the daemon with --save-session=F, killed with -9 in the middle of a
download and started again with -i F --save-session=F, has every download back with its gid,
status and options, and the interrupted one resumes from its part file and finishes exact;
SIGTERM saves the session and exits 0. Daemon only (SLIPSTREAM_CLIENTS_DAEMON=aria2c runs it
against aria2c, with the intervals aria2 needs to save at all before a kill -9)."""

import hashlib
import signal
import time

from conftest import daemon_kind, wait_until

SIZE = 8 << 20
# The promise: `kill -9` in the middle of a download loses at most the last few seconds.
# The test slows the download to a crawl and then gives the daemon that long before the kill:
# a contract of time, not a hope.
FEW_SECONDS = 5
CRAWL = "16K"


def extra(session):
    arguments = ["-j", "1", f"--save-session={session}"]
    if daemon_kind() == "aria2c":
        # aria2 saves its session and control files only on a timer (and on a clean exit).
        arguments += ["--save-session-interval=1", "--auto-save-interval=1"]
    return arguments


RESUME_LIMIT = 10


def resumed(server, gid, at_least):
    done = int(server.status(gid, ["completedLength"])["completedLength"])
    return done if done >= at_least else None


def clean_exits():
    """The exit statuses of a SIGTERM: 0 (aria2c says 7, "unfinished downloads", when one was
    active, which the daemon does not copy: systemd reads it as a failure)."""
    return (0, 7) if daemon_kind() == "aria2c" else (0,)


def test_kill_9_then_restart_restores_and_resumes(start, www, tmp_path):
    _, data = www.put("big.bin", SIZE)
    _, other = www.put("other.bin", 300_000)
    session = tmp_path / "session.txt"
    server = start(daemon_kind(), extra(session))
    folder = server.dir

    # A: active, two connections of 1 MiB/s each. C: waiting behind it (-j 1). B: paused.
    a = server.add(www.rate_url("big.bin", "1m"), out="a.bin", split="2", max_connection_per_server="2")
    b = server.add(www.url("other.bin"), out="b.bin", pause="true", max_download_limit="1M")
    c = server.add(www.url("other.bin"), out="c.bin", max_download_limit="2M")
    wait_until(lambda: int(server.status(a, ["completedLength"])["completedLength"]) >= SIZE // 2, 60,
               "half of A")
    assert server.status(c, ["status"])["status"] == "waiting"
    server.call("aria2.changeOption", a, {"max-download-limit": CRAWL})
    time.sleep(FEW_SECONDS)
    done_before = int(server.status(a, ["completedLength"])["completedLength"])
    assert done_before < SIZE, "A finished before the kill: the rate limit did not hold"
    assert session.exists(), "no session saved while downloads were added and running"

    server.process.send_signal(signal.SIGKILL)
    server.process.wait()

    again = start(daemon_kind(), ["-i", str(session)] + extra(session), folder=folder)
    statuses = {gid: again.status(gid) for gid in (a, b, c)}
    assert statuses[b]["status"] == "paused"
    assert statuses[a]["status"] in ("active", "waiting")
    assert statuses[c]["status"] == "waiting"
    # A resumes from its part file: a quarter of it at once (aria2 says so once it has read its
    # control file, a moment after the start). Fetched anew at the crawl it keeps, that would
    # take two minutes.
    resumed_from = wait_until(lambda: resumed(again, a, SIZE // 4), RESUME_LIMIT, "A to resume from its part file")
    assert resumed_from <= SIZE
    options = {gid: again.call("aria2.getOption", gid) for gid in (a, b, c)}
    assert options[a]["out"] == "a.bin" and options[a]["split"] == "2"
    assert options[a]["max-connection-per-server"] == "2"
    assert options[a]["max-download-limit"] == str(16 << 10)
    assert options[b]["out"] == "b.bin" and options[b]["max-download-limit"] == str(1 << 20)
    assert options[c]["out"] == "c.bin" and options[c]["max-download-limit"] == str(2 << 20)
    assert statuses[a]["files"][0]["uris"][0]["uri"] == www.rate_url("big.bin", "1m")

    again.call("aria2.changeOption", a, {"max-download-limit": "0"})
    assert again.wait_status(a, ("complete", "error"), 120)["status"] == "complete"
    assert (folder / "a.bin").read_bytes() == data
    assert again.wait_status(c, ("complete", "error"), 60)["status"] == "complete"
    assert (folder / "c.bin").read_bytes() == other
    assert again.status(b, ["status"])["status"] == "paused"
    # (nginx's access log cannot say what was fetched twice: it counts what it wrote into the
    # socket, megabytes more than a throttled client read before the kill. A resumed download
    # says where it resumed from, above, and fetches only the rest: its servers' ranges.)

    # SIGTERM saves the session and exits 0; the paused download comes back once more.
    assert again.stop(signal.SIGTERM) in clean_exits()
    third = start(daemon_kind(), ["-i", str(session)] + extra(session), folder=folder)
    assert third.status(b, ["gid", "status"]) == {"gid": b, "status": "paused"}
    assert third.call("aria2.getOption", b)["out"] == "b.bin"


def test_sigterm_keeps_the_part_file_and_the_download(start, www, tmp_path):
    _, data = www.put("big.bin", SIZE)
    session = tmp_path / "session.txt"
    server = start(daemon_kind(), extra(session))
    folder = server.dir
    a = server.add(www.rate_url("big.bin", "256k"), out="a.bin", split="2", max_connection_per_server="2")
    wait_until(lambda: int(server.status(a, ["completedLength"])["completedLength"]) >= 1 << 20, 60,
               "a first MiB")
    server.call("aria2.changeOption", a, {"max-download-limit": CRAWL})
    assert server.stop(signal.SIGTERM) in clean_exits()
    assert session.exists()
    again = start(daemon_kind(), ["-i", str(session)] + extra(session), folder=folder)
    assert again.status(a)["status"] in ("active", "waiting")
    wait_until(lambda: resumed(again, a, 1 << 20), RESUME_LIMIT, "the download to resume from its part file")
    again.call("aria2.changeOption", a, {"max-download-limit": "0"})
    assert again.wait_status(a, ("complete", "error"), 120)["status"] == "complete"
    assert hashlib.sha256((folder / "a.bin").read_bytes()).digest() == hashlib.sha256(data).digest()
