"""A WebSocket client (websocket-client) on /jsonrpc: calls and batches go over it and their
answers come back on it, and the notifications of start, pause, stop, complete and error arrive
as aria2 sends them. Against the daemon and aria2c."""

import json

import pytest

from conftest import Listener, wait_until


@pytest.fixture
def listener(server):
    listening = Listener(server.websocket(timeout=None))
    yield listening
    listening.close()


def send(listener, message):
    listener.ws.send(json.dumps(message))


def test_a_call_and_a_batch_over_the_websocket(server, listener):
    send(listener, server.request("aria2.getVersion", id="v"))
    answer = listener.wait_answer("v")
    assert answer["jsonrpc"] == "2.0"
    assert isinstance(answer["result"]["version"], str)

    send(listener, [server.request("aria2.getGlobalStat", id="a"),
                    server.request("aria2.tellActive", id="b"),
                    server.request("aria2.getGlobalStat", token="token:wrong", id="c")])
    batch = listener.wait_answer(("a", "b", "c"))
    by_id = {m["id"]: m for m in batch}
    assert by_id["a"]["result"]["numActive"] == "0"
    assert by_id["b"]["result"] == []
    assert by_id["c"]["error"] == {"code": 1, "message": "Unauthorized"}

    send(listener, server.request("system.multicall", [
        {"methodName": "aria2.getGlobalStat", "params": [server.token()]},
        {"methodName": "aria2.getVersion", "params": ["token:wrong"]},
    ], token=False, id="m"))
    multicall = listener.wait_answer("m")["result"]
    assert multicall[0][0]["numActive"] == "0"
    assert multicall[1] == {"code": 1, "message": "Unauthorized"}


def test_a_parse_error_over_the_websocket(server, listener):
    listener.ws.send("{not json")
    answer = listener.wait_answer("None")
    assert answer["error"]["code"] == -32700
    # The socket still serves.
    send(listener, server.request("aria2.getVersion", id="after"))
    assert "result" in listener.wait_answer("after")


def test_notifications_of_start_and_complete(server, www, listener):
    url, data = www.put("ws.bin", 1_000_000)
    gid = server.add(url, out="ws.bin")
    listener.wait_event("aria2.onDownloadStart", gid)
    listener.wait_event("aria2.onDownloadComplete", gid)
    assert listener.events.index(("aria2.onDownloadStart", gid)) < \
        listener.events.index(("aria2.onDownloadComplete", gid))
    assert (server.dir / "ws.bin").read_bytes() == data


def test_notification_of_an_error(server, www, listener):
    gid = server.add(www.missing_url(), out="missing.bin")
    listener.wait_event("aria2.onDownloadError", gid)
    status = server.status(gid)
    assert status["status"] == "error"
    assert status["errorCode"] == "3"


def test_notifications_of_pause_and_stop(server, www, listener):
    www.put("big.bin", 4 << 20)
    gid = server.add(www.rate_url("big.bin", "32k"), out="slow.bin")
    listener.wait_event("aria2.onDownloadStart", gid)
    server.call("aria2.pause", gid)
    listener.wait_event("aria2.onDownloadPause", gid)
    server.call("aria2.unpause", gid)
    wait_until(lambda: listener.events.count(("aria2.onDownloadStart", gid)) >= 2, 60,
               "a second start after unpause")
    server.call("aria2.remove", gid)
    listener.wait_event("aria2.onDownloadStop", gid)
    assert server.wait_status(gid, "removed")["status"] == "removed"


def test_notification_message_shape(server, www, listener):
    """A notification is a JSON-RPC request without id: method and params [{"gid": ...}]."""
    url, _ = www.put("shape.bin", 1000)
    gid = server.add(url, out="shape.bin")
    listener.wait_event("aria2.onDownloadComplete", gid)
    # Read one more notification's raw text through a second socket, to see its exact keys.
    second = server.websocket(timeout=30)
    try:
        gid2 = server.add(url, out="shape2.bin")
        seen = []
        while True:
            message = json.loads(second.recv())
            seen.append(message)
            if message.get("method") == "aria2.onDownloadComplete" and message["params"][0]["gid"] == gid2:
                break
        for message in seen:
            assert set(message) == {"jsonrpc", "method", "params"}, message
            assert message["jsonrpc"] == "2.0"
            assert len(message["params"]) == 1 and set(message["params"][0]) == {"gid"}, message
    finally:
        second.close()
