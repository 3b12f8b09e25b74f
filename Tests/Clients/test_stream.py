"""A download served to players while it runs (issue 30, item 5): `curl -r` and mpv reading the
URL of slipstream.getStreamPath while the download runs from the rate-limited test nginx, ranges
far ahead answered before its end, the bytes exact, and the refusals. The page's play button is
in test_page.py.
"""

import pathlib
import shutil
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from conftest import wait_until

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import page_fixtures  # noqa: E402


def stream_url(daemon, gid):
    """The download's stream, once it runs (a waiting one is answered 409 until it starts)."""
    if daemon.kind != "slipstream":
        pytest.skip("aria2 serves no download to players")
    url = f"http://127.0.0.1:{daemon.port}" + daemon.call("slipstream.getStreamPath", gid)

    def served():
        try:
            with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=30) as answer:
                return answer.status == 200
        except urllib.error.HTTPError as error:
            assert error.code == 409, f"{url}: {error.code}"
            return False

    wait_until(served, 60, f"{url} to be served")
    return url


def still_running(daemon, gid, size):
    status = daemon.status(gid, ["status", "completedLength"])
    return status["status"] == "active" and int(status["completedLength"]) < size


def test_curl_reads_a_running_download_far_ahead_then_whole(daemon, www):
    size = 8 << 20
    _, data = www.put("song.mp3", size)
    # Four connections of 256 KiB/s: about 8 s for the whole file.
    gid = daemon.add(www.rate_url("song.mp3", "256k"), split="4", max_connection_per_server="4")
    url = stream_url(daemon, gid)
    far = size - 200_000
    tail = subprocess.run(["curl", "-sSf", "-r", f"{far}-", url], capture_output=True, timeout=120, check=True)
    assert tail.stdout == data[far:]
    assert still_running(daemon, gid, size), "the range far ahead came after the download's end"
    middle = subprocess.run(["curl", "-sSf", "-r", "3000000-3099999", url], capture_output=True, timeout=120, check=True)
    assert middle.stdout == data[3_000_000:3_100_000]
    head = subprocess.run(["curl", "-sSfI", url], capture_output=True, timeout=60, check=True).stdout.decode().lower()
    assert "accept-ranges: bytes" in head and f"content-length: {size}" in head and "audio/mpeg" in head
    # A player reading from the start to the end gets every byte, exact, as they arrive.
    whole = subprocess.run(["curl", "-sSf", url], capture_output=True, timeout=300, check=True)
    assert whole.stdout == data
    daemon.wait_status(gid, "complete")
    # Complete, it is served from its file.
    again = subprocess.run(["curl", "-sSf", "-r", "-1000", url], capture_output=True, timeout=60, check=True)
    assert again.stdout == data[-1000:]


@pytest.mark.skipif(not shutil.which("mpv"), reason="mpv is not installed")
def test_mpv_plays_and_seeks_a_running_download(daemon, www):
    data = page_fixtures.tone_mp3(1800)
    www.put("tone.mp3", data=data)
    # Connections of 64 KiB/s (the daemon opens 8): about a minute for the whole file.
    gid = daemon.add(www.rate_url("tone.mp3", "64k"))
    url = stream_url(daemon, gid)

    def mpv(*arguments):
        played = subprocess.run(["mpv", "--no-config", "--no-video", "--ao=null", "--length=2", *arguments, url],
                                capture_output=True, timeout=180)
        output = (played.stdout + played.stderr).decode(errors="replace")
        assert played.returncode == 0 and "Exiting... (End of file)" in output, output
        return output

    # From the start, as a player given the URL.
    assert "A: 00:00:0" in mpv()
    # From the middle: a byte seek (fastseek: ffmpeg's MP3 seek without it reads from the start),
    # served before the download has half the file.
    assert "A: 00:15:0" in mpv("--start=50%", "--demuxer-lavf-o=fflags=+fastseek")
    status = daemon.status(gid, ["status", "completedLength"])
    assert status["status"] == "active" and int(status["completedLength"]) < len(data) // 2, status
    daemon.call("aria2.forceRemove", gid)


def test_a_wrong_token_a_foreign_host_or_origin_is_refused(daemon, www):
    _, data = www.put("refused.mp3", 1 << 20)
    gid = daemon.add(www.rate_url("refused.mp3", "64k"))
    url = stream_url(daemon, gid)
    token = url.split("/")[-2]

    def status(target, headers=None):
        try:
            with urllib.request.urlopen(urllib.request.Request(target, headers=headers or {}), timeout=30) as answer:
                return answer.status
        except urllib.error.HTTPError as error:
            return error.code

    assert status(url.replace(token, "0" * len(token))) == 404
    assert status(url.replace(gid, "0123456789abcdef")) == 404
    assert status(url, {"Host": f"rebind.example:{daemon.port}"}) == 403
    assert status(url, {"Origin": "http://evil.example"}) == 403
    assert status(url, {"Sec-Fetch-Site": "cross-site"}) == 403
    assert status(url, {"Range": "bytes=0-9"}) == 206
    daemon.call("aria2.forceRemove", gid)
