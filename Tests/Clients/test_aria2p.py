"""aria2p (from PyPI), as a Python script drives aria2: adding with options, listing, pausing,
resuming, removing, purging, statistics, options, and notifications over the WebSocket. Each
test runs against the daemon and against aria2c (the `server` fixture)."""

import hashlib
import threading

import aria2p
import pytest
import websocket

from conftest import wait_until


def api_of(server):
    return aria2p.API(aria2p.Client(host="http://127.0.0.1", port=server.port, secret=server.secret, timeout=30))


def wait_download(api, gid, statuses, limit=60):
    statuses = (statuses,) if isinstance(statuses, str) else statuses

    def check():
        download = api.get_download(gid)
        return download if download.status in statuses else None

    return wait_until(check, limit, f"{gid} to be {statuses}", 0.1)


def test_add_with_options_downloads_the_exact_file(server, www):
    _, data = www.put("one.bin", 3_000_000)
    # nginx serves /need-header/ only to a client that sends this header with every request.
    url = www.url("one.bin", "need-header")
    api = api_of(server)
    download = api.add_uris([url], {
        "dir": str(server.dir / "sub"), "out": "copy.bin", "split": "4", "max-connection-per-server": "4",
        "min-split-size": "1M", "checksum": "sha-256=" + hashlib.sha256(data).hexdigest(),
        # Two headers: every one goes with every request, not only the last.
        "header": ["X-Slipstream-Token: let-me-in", "X-Slipstream-Other: 1"],
    })
    assert len(download.gid) == 16
    done = wait_download(api, download.gid, ("complete", "error"))
    assert done.status == "complete", done.error_message
    assert (server.dir / "sub" / "copy.bin").read_bytes() == data
    assert done.total_length == len(data)
    assert done.completed_length == len(data)
    assert str(done.files[0].path) == str(server.dir / "sub" / "copy.bin")
    assert done.files[0].uris[0]["uri"] == url
    assert done.error_code == "0"


def test_mirrors_and_get_downloads(server, www):
    url, data = www.put("mirrored.bin", 1_500_000)
    api = api_of(server)
    download = api.add_uris([url, www.url("mirrored.bin", "slow")], {"out": "m.bin"})
    done = wait_download(api, download.gid, ("complete", "error"))
    assert done.status == "complete", done.error_message
    assert (server.dir / "m.bin").read_bytes() == data
    gids = [d.gid for d in api.get_downloads()]
    assert download.gid in gids


def gone_or_removed(api, gid):
    try:
        return api.get_download(gid).status == "removed"
    except aria2p.ClientException as error:
        assert error.code == 1 and "not found" in error.message, error.message
        return True


def test_pause_resume_remove_purge(server, www):
    www.put("big.bin", 8 << 20)
    api = api_of(server)
    slow = api.add_uris([www.rate_url("big.bin", "64k")], {"out": "slow.bin"})
    wait_until(lambda: api.get_download(slow.gid).completed_length > 0, 60, "the slow download to start")
    [paused] = api.pause([slow])
    assert paused
    wait_download(api, slow.gid, "paused")
    [resumed] = api.resume([api.get_download(slow.gid)])
    assert resumed
    wait_download(api, slow.gid, ("active", "waiting"))

    queued = api.add_uris([www.url("big.bin")], {"out": "queued.bin", "pause": "true"})
    assert api.get_download(queued.gid).status == "paused"
    assert api.get_download(queued.gid).options.get("out") == "queued.bin"

    missing = api.add_uris([www.missing_url()], {"out": "missing.bin"})
    failed = wait_download(api, missing.gid, "error")
    assert failed.error_code == "3"

    # aria2p removes the download, then its result (which fails while it is still stopping).
    assert all(api.remove([api.get_download(slow.gid), api.get_download(queued.gid)]))
    for gid in (slow.gid, queued.gid):
        wait_until(lambda: gone_or_removed(api, gid), 30, f"{gid} to be removed")
    assert api.purge()
    left = [d.gid for d in api.get_downloads()]
    assert slow.gid not in left and missing.gid not in left and queued.gid not in left


def test_global_stat_and_options(server, www):
    www.put("big.bin", 4 << 20)
    api = api_of(server)
    stats = api.get_stats()
    assert stats.num_active == 0 and stats.num_waiting == 0
    download = api.add_uris([www.rate_url("big.bin", "64k")], {"out": "stat.bin"})
    wait_until(lambda: api.get_stats().num_active == 1, 60, "one active download")
    paused = api.add_uris([www.url("big.bin")], {"out": "p.bin", "pause": "true"})
    stats = api.get_stats()
    assert stats.num_waiting == 1
    assert stats.download_speed >= 0

    options = api.get_options([download])[0]
    assert options.get("out") == "stat.bin"
    assert api.set_options({"max-download-limit": "32K"}, [download]) == [True]
    assert api.get_options([download])[0].get("max-download-limit") == str(32 << 10)

    global_options = api.get_global_options()
    assert global_options.get("dir") == str(server.dir)
    assert api.set_global_options({"max-overall-download-limit": "1M", "max-concurrent-downloads": "3"})
    global_options = api.get_global_options()
    assert global_options.get("max-overall-download-limit") == str(1 << 20)
    assert global_options.get("max-concurrent-downloads") == "3"
    api.remove([download, paused], force=True)


def test_notifications_of_start_and_complete(server, www, monkeypatch):
    url, data = www.put("notified.bin", 2_000_000)
    api = api_of(server)
    # aria2p opens its WebSocket with websocket.create_connection, which returns once the
    # handshake is done: from then on the server sends it every notification.
    connected = threading.Event()
    create_connection = websocket.create_connection

    def connect(*args, **kwargs):
        socket = create_connection(*args, **kwargs)
        connected.set()
        return socket

    monkeypatch.setattr(websocket, "create_connection", connect)
    events = []
    seen = threading.Condition()

    def record(kind):
        def callback(_api, gid):
            with seen:
                events.append((kind, gid))
                seen.notify_all()
        return callback

    api.listen_to_notifications(threaded=True, on_download_start=record("start"),
                                on_download_complete=record("complete"), on_download_error=record("error"),
                                timeout=1)
    try:
        assert connected.wait(30), "aria2p's WebSocket did not connect"
        download = api.add_uris([url], {"out": "notified.bin"})
        missing = api.add_uris([www.missing_url()], {"out": "missing.bin"})
        with seen:
            assert seen.wait_for(lambda: ("complete", download.gid) in events and ("error", missing.gid) in events, 60), events
        assert ("start", download.gid) in events
        assert events.index(("start", download.gid)) < events.index(("complete", download.gid))
        assert (server.dir / "notified.bin").read_bytes() == data
    finally:
        api.stop_listening()


@pytest.mark.parametrize("force", [False, True])
def test_pause_all_and_resume_all(server, www, force):
    www.put("big.bin", 4 << 20)
    api = api_of(server)
    downloads = [api.add_uris([www.rate_url("big.bin", "32k")], {"out": f"all{i}.bin"}) for i in range(2)]
    for d in downloads:
        wait_download(api, d.gid, "active")
    assert api.pause_all(force=force)
    for d in downloads:
        wait_download(api, d.gid, "paused")
    assert api.resume_all()
    for d in downloads:
        wait_download(api, d.gid, ("active", "waiting"))
    api.remove(downloads, force=True)
