"""What aria2 does not do, the daemon does: it refuses to listen on every address without a
secret, refuses requests from other origins (the CORS "simple" POSTs too) and other Host names,
keeps `dir` and `out` inside its download folder, bounds what a client may send and keeps
serving after a bad one, and listens on loopback only. Daemon only."""

import http.client
import json
import os
import socket
import subprocess
import time

import pytest

from conftest import RPCError, command, daemon_kind, free_port, port_answers, wait_until

EVIL = "http://evil.test"


def queue_is_empty(server):
    return (server.call("aria2.tellActive", ["gid"]) == [] and server.call("aria2.tellWaiting", 0, 100, ["gid"]) == []
            and server.call("aria2.tellStopped", 0, 100, ["gid"]) == [])


def raw_http(server, method, path, body=b"", headers=None, timeout=30):
    """One request with exactly these headers (Host among them if given): (status, body), or
    (None, the exception) when the daemon closed the connection instead of answering."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
    try:
        given = {k.lower() for k in (headers or {})}
        connection.putrequest(method, path, skip_host="host" in given, skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        if body or method == "POST":
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        answer = connection.getresponse()
        return answer.status, answer.read()
    except (ConnectionError, http.client.HTTPException, socket.timeout) as error:
        return None, error
    finally:
        connection.close()


def still_serves(server):
    assert server.call("aria2.getGlobalStat")["numActive"] == "0"
    assert server.alive()


def test_listen_all_without_secret_refuses_to_start(tmp_path):
    port = free_port()
    arguments = [a for a in command(daemon_kind(), port, "unused", tmp_path) if not a.startswith("--rpc-secret")]
    process = subprocess.Popen(arguments + ["--rpc-listen-all"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while process.poll() is None:
            assert not port_answers(port), "it listens on every address without a secret"
            assert time.monotonic() < deadline, "it neither exited nor listened in 30 s"
            time.sleep(0.05)
        said = process.stdout.read()
        assert process.returncode != 0
        assert b"secret" in said.lower(), said
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_listen_all_with_a_secret_starts(start):
    server = start(daemon_kind(), ["--rpc-listen-all"])
    assert server.call("aria2.getGlobalStat")["numActive"] == "0"
    assert listening_addresses(server.port) & {"0.0.0.0", "::"}


def test_wrong_token_is_unauthorized(daemon):
    for token in ("token:wrong", "token:", f"token:{daemon.secret}x", daemon.secret, False):
        with pytest.raises(RPCError) as error:
            daemon.call("aria2.getGlobalStat", token=token)
        assert (error.value.code, error.value.message) == (1, "Unauthorized"), token


def test_a_simple_post_from_another_origin_is_refused(daemon, www):
    url, _ = www.put("evil.bin", 1000)
    body = json.dumps(daemon.request("aria2.addUri", [url], {"out": "evil.bin"})).encode()
    for headers in ({"Origin": EVIL, "Content-Type": "text/plain"},
                    {"Origin": EVIL, "Content-Type": "application/x-www-form-urlencoded"},
                    {"Origin": "null", "Content-Type": "text/plain"},
                    {"Origin": f"http://127.0.0.1:{daemon.port}.evil.test", "Content-Type": "text/plain"}):
        status, _, answer = daemon.post_raw(body, headers)
        assert status in (400, 403), (headers, status, answer)
        assert b"result" not in answer
    assert queue_is_empty(daemon)
    assert not (daemon.dir / "evil.bin").exists()
    # Its own page's origin is allowed (the page at / calls /jsonrpc).
    status, _, answer = daemon.post_raw(daemon.request("aria2.getGlobalStat"),
                                     {"Origin": f"http://127.0.0.1:{daemon.port}", "Content-Type": "text/plain"})
    assert status == 200 and "result" in json.loads(answer)


def test_a_get_from_another_origin_is_refused(daemon, www):
    url, _ = www.put("evil.bin", 1000)
    import base64
    params = base64.b64encode(json.dumps([daemon.token(), [url], {"out": "evil.bin"}]).encode()).decode()
    status, _ = raw_http(daemon, "GET", f"/jsonrpc?method=aria2.addUri&id=1&params={params}&jsoncallback=cb",
                         headers={"Host": f"127.0.0.1:{daemon.port}", "Origin": EVIL})
    assert status in (400, 403)
    assert queue_is_empty(daemon)


def test_a_websocket_from_another_origin_is_refused(daemon):
    import websocket
    with pytest.raises(websocket.WebSocketException):
        daemon.websocket(timeout=10, origin=EVIL).close()
    still_serves(daemon)


def test_a_foreign_host_is_refused(daemon):
    body = json.dumps(daemon.request("aria2.getGlobalStat")).encode()
    for host in ("evil.test", f"evil.test:{daemon.port}", "127.0.0.1.evil.test"):
        status, answer = raw_http(daemon, "POST", "/jsonrpc", body, {"Host": host, "Content-Type": "application/json"})
        assert status in (400, 403, 421), (host, status, answer)
    for host in (f"127.0.0.1:{daemon.port}", f"localhost:{daemon.port}"):
        status, answer = raw_http(daemon, "POST", "/jsonrpc", body, {"Host": host, "Content-Type": "application/json"})
        assert status == 200, (host, status, answer)
    status, _ = raw_http(daemon, "GET", "/", headers={"Host": "evil.test"})
    assert status in (400, 403, 421)


@pytest.fixture
def outside(tmp_path):
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


def refused_or_failed(server, uris, options):
    """addUri with these options either answers an error or makes a download that fails."""
    try:
        gid = server.call("aria2.addUri", uris, options)
    except RPCError as error:
        assert error.code == 1
        return
    assert server.wait_status(gid, ("error", "complete"))["status"] == "error", options


def test_dir_and_out_cannot_leave_the_folder(daemon, www, outside):
    url, data = www.put("escape.bin", 1000)
    (daemon.dir / "link").symlink_to(outside)
    parent = daemon.dir.parent
    name = f"escape-{os.getpid()}-{time.monotonic_ns()}.bin"  # nowhere else on the machine
    attempts = [
        {"out": f"../{name}"},
        {"out": f"sub/../../{name}"},
        {"out": str(outside / name)},
        {"dir": str(outside), "out": name},
        {"dir": str(daemon.dir / ".." / "outside"), "out": name},
        {"dir": "/tmp", "out": name},
        {"dir": str(daemon.dir / "link"), "out": name},
        {"out": f"link/{name}"},
        {"dir": str(daemon.dir), "out": f"link/../../{name}"},
    ]
    for options in attempts:
        refused_or_failed(daemon, [url], options)
    assert list(outside.iterdir()) == []
    assert not (parent / name).exists()
    assert not os.path.exists(f"/tmp/{name}")
    # Inside the folder is fine.
    gid = daemon.add(url, dir=str(daemon.dir / "sub"), out="in.bin")
    assert daemon.wait_status(gid, ("complete", "error"))["status"] == "complete"
    assert (daemon.dir / "sub" / "in.bin").read_bytes() == data


def test_a_global_dir_outside_is_refused(daemon, outside):
    with pytest.raises(RPCError):
        daemon.call("aria2.changeGlobalOption", {"dir": str(outside)})
    assert daemon.call("aria2.getGlobalOption")["dir"] == str(daemon.dir)


def test_an_oversized_body_is_refused_and_serving_goes_on(daemon):
    body = json.dumps(daemon.request("aria2.addUri", ["http://127.0.0.1:1/x" + "a" * (2 << 20)])).encode()
    status, answer = raw_http(daemon, "POST", "/jsonrpc", body, {"Content-Type": "application/json"})
    assert status is None or status >= 400, (status, answer)
    still_serves(daemon)
    assert queue_is_empty(daemon)


def test_bad_json_gets_a_parse_error_and_serving_goes_on(daemon):
    for body in (b"{", b"\xff\xfe", b'{"a": ' * 10000, b"[" * 100000, b'"\\ud800"', b"1e999999"):
        status, _, answer = daemon.post_raw(body)
        # (Which HTTP status goes with an error answer is compared with aria2's elsewhere.)
        assert status in (200, 400, 413, 500), status
        if status != 413:
            assert json.loads(answer)["error"]["code"] in (-32700, -32600), answer
        still_serves(daemon)


def test_a_bad_websocket_frame_closes_that_socket_only(daemon):
    ws = daemon.websocket(timeout=10)
    ws.sock.sendall(b"\x81\x7f" + b"\xff" * 8 + b"garbage")  # a text frame of 2^64-1 bytes, unmasked
    with pytest.raises(Exception):
        for _ in range(3):
            ws.recv()
    ws.close()
    still_serves(daemon)


def test_a_slow_client_does_not_hold_up_the_others(daemon):
    held = []
    try:
        for _ in range(20):
            s = socket.create_connection(("127.0.0.1", daemon.port), timeout=10)
            s.sendall(f"POST /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1:{daemon.port}\r\nContent-Length: 1000\r\n\r\n{{".encode())
            held.append(s)
        idle = socket.create_connection(("127.0.0.1", daemon.port), timeout=10)
        held.append(idle)
        still_serves(daemon)
    finally:
        for s in held:
            s.close()
    still_serves(daemon)


def test_many_connections_are_bounded_and_serving_goes_on(daemon):
    held = []
    try:
        for _ in range(300):
            try:
                held.append(socket.create_connection(("127.0.0.1", daemon.port), timeout=5))
            except OSError:
                break
    finally:
        for s in held:
            s.close()
    wait_until(lambda: _serves(daemon), 30, "the daemon to serve again")


def _serves(server):
    try:
        return server.call("aria2.getGlobalStat") is not None
    except OSError:
        return False


def listening_addresses(port):
    """The local addresses with a socket listening on `port` (from /proc/net/tcp and tcp6)."""
    found = set()
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            address, hex_port = fields[1].split(":")
            if int(hex_port, 16) != port or fields[3] != "0A":  # 0A: LISTEN
                continue
            raw = bytes.fromhex(address)
            if width == 8:
                found.add(socket.inet_ntop(socket.AF_INET, raw[::-1]))
            else:
                words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
                found.add(socket.inet_ntop(socket.AF_INET6, words))
    return found


def test_bound_on_loopback_only(daemon):
    addresses = listening_addresses(daemon.port)
    assert addresses, "no listening socket found"
    assert addresses <= {"127.0.0.1", "::1"}, addresses
