"""The same requests sent to `aria2c --enable-rpc` and to `slipstream daemon`, and the answers'
SHAPES compared: the same keys where aria2 has them (ours adds none to aria2's structs), the same
JSON types (every number a string), the same status words, gids of 16 hex digits, the same
error codes and HTTP statuses for the same errors, and the same order where aria2 orders (gids
are replaced by the role of their download, so tellStopped(-1, n) must name the same downloads
in the same order).

Where the daemon knowingly differs from aria2, the difference is listed in KNOWN with the reason;
every other difference fails the test with its path."""

import hashlib
import json
import re

import pytest

from conftest import wait_until

GID = re.compile(r"^[0-9a-f]{16}$")
NUMBER = re.compile(r"^-?[0-9]+(\.[0-9]+)?$")

# Keys whose values are compared, not only their shapes (after gids and folders are replaced).
VALUE_KEYS = {"status", "errorCode", "selected", "path", "dir", "uri", "currentUri", "index", "length",
              "totalLength", "code", "jsonrpc", "method", "http"}
# Error messages compared to the letter: aria2's clients show them, some match on them.
FIXED_MESSAGES = {"Unauthorized", "Parse error.", "Invalid Request.", "Method not found."}

# Differences the daemon has on purpose: (a regular expression on the whole difference line,
# "path: what differs"), and the reason.
KNOWN = [
    (r"^getVersion\.result\.(version|enabledFeatures)", "our own version and features"),
    (r"^listMethods\.result", "compared as sets in test_methods_and_notifications"),
    (r"^(getOption|getGlobalOption)(\.[\w-]+)*\.result\.", "options compared in test_options (a subset of aria2's names)"),
    (r"^getServers\.active\.result\[0\]\.servers: \d+ elements",
     "how many connections a download holds is the engine's choice (aria2 opens one per server by default)"),
    (r"\.uris: \d+ elements where aria2 has \d+$",
     "aria2 lists a URI again, as waiting, for each of its connections that ended (three entries for "
     "one URL after split=2): each URI once is what clients show"),
]


def shape_diff(ours, theirs, path="$"):
    """Walks aria2's answer (`theirs`) and ours side by side: a list of "path: difference"."""
    out = []
    if isinstance(theirs, dict):
        if not isinstance(ours, dict):
            return [f"{path}: aria2 has an object, ours {type(ours).__name__} {ours!r:.80}"]
        for key in theirs:
            if key not in ours:
                out.append(f"{path}.{key}: missing (aria2 has {theirs[key]!r:.80})")
        for key in ours:
            if key not in theirs:
                out.append(f"{path}.{key}: extra key (aria2 has none): {ours[key]!r:.80}")
        for key in theirs:
            if key in ours:
                sub = f"{path}.{key}"
                if key in VALUE_KEYS and not isinstance(theirs[key], (dict, list)):
                    if ours[key] != theirs[key]:
                        out.append(f"{sub}: {ours[key]!r} where aria2 has {theirs[key]!r}")
                        continue
                if key == "message" and theirs[key] in FIXED_MESSAGES and ours[key] != theirs[key]:
                    out.append(f"{sub}: {ours[key]!r} where aria2 says {theirs[key]!r}")
                    continue
                out.extend(shape_diff(ours[key], theirs[key], sub))
        return out
    if isinstance(theirs, list):
        if not isinstance(ours, list):
            return [f"{path}: aria2 has an array, ours {type(ours).__name__} {ours!r:.80}"]
        if len(ours) != len(theirs):
            out.append(f"{path}: {len(ours)} elements where aria2 has {len(theirs)}")
        for i, (o, t) in enumerate(zip(ours, theirs)):
            out.extend(shape_diff(o, t, f"{path}[{i}]"))
        return out
    if type(ours) is not type(theirs):
        return [f"{path}: {type(ours).__name__} {ours!r:.80} where aria2 has {type(theirs).__name__} {theirs!r:.80}"]
    if isinstance(theirs, str):
        if theirs.startswith("<gid:") and ours != theirs:
            return [f"{path}: {ours!r} where aria2 names {theirs}"]
        if GID.match(theirs) and not GID.match(ours):
            return [f"{path}: {ours!r} is not 16 hex digits like aria2's {theirs!r}"]
        if NUMBER.match(theirs) and not NUMBER.match(ours):
            return [f"{path}: {ours!r} is not a number in a string like aria2's {theirs!r}"]
    return out


def unknown(differences):
    """The differences not listed in KNOWN."""
    return [d for d in differences if not any(re.search(pattern, d) for pattern, _ in KNOWN)]


def test_shape_diff_reports_paths():
    """The comparison itself: each kind of difference, with its path."""
    theirs = {"a": "1", "b": [{"c": "x"}], "status": "active", "g": "<gid:one>", "n": 1}
    ours = {"a": 1, "b": [{"c": "x", "d": "y"}], "status": "waiting", "g": "<gid:two>", "e": "z"}
    got = shape_diff(ours, theirs)
    assert any(d.startswith("$.a: int") for d in got), got
    assert "$.b[0].d: extra key (aria2 has none): 'y'" in got
    assert "$.status: 'waiting' where aria2 has 'active'" in got
    assert "$.g: '<gid:two>' where aria2 names <gid:one>" in got
    assert any(d.startswith("$.n: missing") for d in got)
    assert any(d.startswith("$.e: extra key") for d in got)
    assert shape_diff({"x": ["1", "2"]}, {"x": ["3", "4"]}) == []
    assert shape_diff({"x": "12ab"}, {"x": "12"}) == ["$.x: '12ab' is not a number in a string like aria2's '12'"]
    assert unknown(["getVersion.result.version: int 1 where aria2 has str '1.36.0'",
                    "tellStatus.complete.result.files[0].uris: 1 elements where aria2 has 3",
                    "tellStatus.complete.result.files[0].uris: missing (aria2 has [])"]) == \
        ["tellStatus.complete.result.files[0].uris: missing (aria2 has [])"]


class Recorder:
    """Runs the scenario's requests on one server and keeps each answer by name, with gids
    replaced by the role of their download and the server's folder by <DIR>."""

    def __init__(self, server):
        self.server = server
        self.answers = {}
        self.roles = {}

    def normalize(self, value):
        if isinstance(value, dict):
            return {k: self.normalize(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.normalize(v) for v in value]
        if isinstance(value, str):
            if value in self.roles:
                return f"<gid:{self.roles[value]}>"
            return value.replace(str(self.server.dir), "<DIR>")
        return value

    def keep(self, name, answer, status=None):
        answer = self.normalize(answer)
        self.answers[name] = dict(answer, http=status) if isinstance(answer, dict) else {"http": status, "body": answer}

    def call(self, name, method, *params, token=True):
        answer, status = self.server.answer(method, *params, token=token)
        self.keep(name, answer, status)
        return answer.get("result")

    def add(self, role, uris, options, *position):
        gid = self.server.call("aria2.addUri", uris, options, *position)
        self.roles[gid] = role
        return gid

    def raw(self, name, body):
        status, _, text = self.server.post_raw(body)
        self.keep(name, json.loads(text) if text.strip() else None, status)


def scenario(server, files):
    """The one sequence of requests, with the same files and options on either server."""
    r = Recorder(server)
    small_url, small = files["small"]
    big_name = files["big_name"]
    digest = hashlib.sha256(small).hexdigest()
    r.call("getVersion", "aria2.getVersion")
    r.call("getSessionInfo", "aria2.getSessionInfo")
    r.call("getGlobalStat.empty", "aria2.getGlobalStat")
    r.call("tellActive.empty", "aria2.tellActive")
    r.call("tellStopped.empty", "aria2.tellStopped", 0, 10)

    r.add("complete", [small_url], {"dir": f"{server.dir}/sub", "out": "small.bin", "split": "2",
                                    "max-connection-per-server": "2", "checksum": f"sha-256={digest}",
                                    "header": ["X-Slipstream-Test: 1"]})
    wait_until(lambda: server.status(gid_of(r, "complete"), ["status"])["status"] == "complete", 60,
               "the small download to complete")
    r.add("error", [files["missing"]], {"out": "missing.bin"})
    wait_until(lambda: server.status(gid_of(r, "error"), ["status"])["status"] == "error", 60,
               "the 404 to fail")
    r.add("badsum", [small_url], {"out": "badsum.bin", "checksum": "sha-256=" + "0" * 64})
    wait_until(lambda: server.status(gid_of(r, "badsum"), ["status"])["status"] == "error", 60,
               "the bad checksum to fail")
    r.add("active", [files["slow"]], {"out": "slow.bin"})
    wait_until(lambda: server.status(gid_of(r, "active"), ["totalLength"])["totalLength"] != "0", 60,
               "the slow download to learn its length")
    r.add("paused", [files["big"]], {"out": big_name, "pause": "true"})
    r.add("paused-first", [files["big"]], {"out": "first.bin", "pause": "true"}, 0)

    for role in ("complete", "error", "badsum", "active", "paused"):
        gid = gid_of(r, role)
        r.call(f"tellStatus.{role}", "aria2.tellStatus", gid)
        r.call(f"tellStatus.{role}.keys", "aria2.tellStatus", gid, ["gid", "status", "totalLength", "nonexistent"])
        r.call(f"getFiles.{role}", "aria2.getFiles", gid)
        r.call(f"getUris.{role}", "aria2.getUris", gid)
    r.call("tellStatus.keys.empty", "aria2.tellStatus", gid_of(r, "active"), [])
    wait_until(lambda: server.call("aria2.getServers", gid_of(r, "active"))[0]["servers"], 30,
               "the slow download to have a connection")
    r.call("getServers.active", "aria2.getServers", gid_of(r, "active"))
    r.call("getServers.paused", "aria2.getServers", gid_of(r, "paused"))
    r.call("getServers.complete", "aria2.getServers", gid_of(r, "complete"))
    r.call("tellActive", "aria2.tellActive")
    r.call("tellActive.keys", "aria2.tellActive", ["gid", "status"])
    for offset, count in ((0, 10), (-1, 10), (-1, 1), (1, 1), (-2, 1), (-10, 2), (10, 2)):
        r.call(f"tellWaiting({offset},{count})", "aria2.tellWaiting", offset, count, ["gid", "status"])
    for offset, count in ((0, 10), (-1, 10), (-1, 1), (-2, 2), (-3, 1), (1, 2), (-10, 2), (10, 2), (0, 0)):
        r.call(f"tellStopped({offset},{count})", "aria2.tellStopped", offset, count, ["gid", "status"])
    r.call("tellStopped.full", "aria2.tellStopped", 0, 10)
    r.call("tellWaiting.full", "aria2.tellWaiting", 0, 10)
    r.call("getGlobalStat", "aria2.getGlobalStat")

    paused = gid_of(r, "paused")
    r.call("getOption.paused", "aria2.getOption", paused)
    r.call("changeOption", "aria2.changeOption", paused, {"max-download-limit": "100K"})
    r.call("getOption.changed", "aria2.getOption", paused)
    r.call("changeOption.bad", "aria2.changeOption", paused, {"max-download-limit": "fast please"})
    r.call("getGlobalOption", "aria2.getGlobalOption")
    r.call("changeGlobalOption", "aria2.changeGlobalOption", {"max-overall-download-limit": "0"})
    r.call("changePosition.set", "aria2.changePosition", paused, 0, "POS_SET")
    r.call("changePosition.cur", "aria2.changePosition", paused, 1, "POS_CUR")
    r.call("changePosition.cur.far", "aria2.changePosition", paused, -100, "POS_CUR")
    r.call("changePosition.end", "aria2.changePosition", paused, 0, "POS_END")
    r.call("changePosition.bad", "aria2.changePosition", paused, 0, "POS_NOWHERE")
    r.call("tellWaiting.moved", "aria2.tellWaiting", 0, 10, ["gid"])
    r.call("pause.paused", "aria2.pause", paused)
    r.call("pause.complete", "aria2.pause", gid_of(r, "complete"))
    r.call("unpause.active", "aria2.unpause", gid_of(r, "active"))
    r.call("system.multicall", "system.multicall", [
        {"methodName": "aria2.getGlobalStat", "params": [server.token()]},
        {"methodName": "aria2.tellStatus", "params": [server.token(), "0123456789abcdef"]},
        {"methodName": "aria2.getGlobalStat", "params": ["token:wrong"]},
        {"methodName": "aria2.tellStatus", "params": [server.token(), gid_of(r, "active"), ["gid", "status"]]},
        {"methodName": "system.multicall", "params": [[]]},
    ], token=False)
    r.call("system.multicall.bad", "system.multicall", "not a list", token=False)
    r.call("listMethods", "system.listMethods", token=False)
    r.call("listNotifications", "system.listNotifications", token=False)

    # Errors.
    r.call("error.token", "aria2.getGlobalStat", token="token:wrong")
    r.call("error.no-token", "aria2.getGlobalStat", token=False)
    r.call("error.method", "aria2.noSuchMethod")
    r.call("error.params.type", "aria2.tellStatus", 5)
    r.call("error.params.missing", "aria2.tellStatus")
    r.call("error.params.negative", "aria2.tellWaiting", 0, -1)
    r.call("error.params.options", "aria2.addUri", [small_url], [])
    r.call("error.gid.unknown", "aria2.tellStatus", "0123456789abcdef")
    r.call("error.gid.invalid", "aria2.tellStatus", "not-a-gid")
    r.call("error.addUri.none", "aria2.addUri", [])
    r.call("error.addUri.option", "aria2.addUri", [small_url], {"split": "many"})
    r.call("error.remove.unknown", "aria2.remove", "0123456789abcdef")
    r.raw("error.parse", b'{"jsonrpc": "2.0", "id": 1, "method": ')
    r.raw("error.invalid", {"jsonrpc": "2.0", "id": 7})
    r.raw("error.no-id", {"jsonrpc": "2.0", "method": "aria2.getVersion", "params": [server.token()]})
    r.raw("error.batch", [
        {"jsonrpc": "2.0", "id": 1, "method": "aria2.getGlobalStat", "params": [server.token()]},
        {"jsonrpc": "2.0", "id": 2, "method": "aria2.noSuchMethod", "params": [server.token()]},
        {"jsonrpc": "2.0", "id": 3, "method": "aria2.getGlobalStat", "params": ["token:wrong"]},
        {"jsonrpc": "2.0", "id": 4},
    ])
    r.raw("batch.empty", b"[]")

    # The end of downloads: remove, results, purge.
    r.call("remove.paused", "aria2.remove", gid_of(r, "paused-first"))
    r.call("forceRemove.active", "aria2.forceRemove", gid_of(r, "active"))
    wait_until(lambda: server.status(gid_of(r, "active"), ["status"])["status"] == "removed", 30,
               "the removed download to stop")
    r.call("tellStatus.removed", "aria2.tellStatus", gid_of(r, "active"))
    r.call("removeDownloadResult", "aria2.removeDownloadResult", gid_of(r, "error"))
    r.call("removeDownloadResult.again", "aria2.removeDownloadResult", gid_of(r, "error"))
    r.call("purgeDownloadResult", "aria2.purgeDownloadResult")
    r.call("tellStopped.purged", "aria2.tellStopped", 0, 10)
    return r


def gid_of(recorder, role):
    return next(g for g, name in recorder.roles.items() if name == role)


@pytest.fixture
def files(www):
    small = www.put("small.bin", 200_000)
    www.put("big.bin", 4 << 20)
    return {"small": small, "missing": www.missing_url(), "slow": www.rate_url("big.bin", "16k"),
            "big": www.url("big.bin"), "big_name": "big.bin"}


def test_answers_have_aria2s_shapes(both, files):
    ours, theirs = both
    theirs_answers = scenario(theirs, files).answers
    ours_answers = scenario(ours, files).answers
    differences = []
    for name, answer in theirs_answers.items():
        differences += [d.replace("$", name, 1) for d in shape_diff(ours_answers.get(name), answer)]
    left = unknown(differences)
    assert not left, "differences from aria2c's answers:\n" + "\n".join(left) + \
        "\n\naria2c's answers:\n" + json.dumps(theirs_answers, indent=1)[:20000]


def test_methods_and_notifications(both):
    ours, theirs = both
    our_methods = set(ours.call("system.listMethods", token=False))
    their_methods = set(theirs.call("system.listMethods", token=False))
    # Torrents are not downloaded here: getPeers is aria2's only torrent-only method; addTorrent
    # stays listed and answers a clear error. slipstream.getPieces and getStreamPath are the page's own.
    assert their_methods - our_methods <= {"aria2.getPeers"}, their_methods - our_methods
    assert our_methods - their_methods <= {"slipstream.getPieces", "slipstream.getStreamPath"}, our_methods - their_methods
    our_events = set(ours.call("system.listNotifications", token=False))
    their_events = set(theirs.call("system.listNotifications", token=False))
    assert their_events - our_events <= {"aria2.onBtDownloadComplete"}, their_events - our_events
    assert our_events <= their_events


def test_options(both):
    """getOption and getGlobalOption: every value a string, and no option name aria2 does not
    have (the daemon may know fewer: those of a torrent, say, mean nothing here); the ones every
    client reads are there."""
    ours, theirs = both
    # A download with every option the clients send, so that aria2 lists them all for it.
    options = {"pause": "true", "out": "x.bin", "split": "3", "max-connection-per-server": "3",
               "min-split-size": "2M", "checksum": "sha-256=" + "0" * 64, "max-download-limit": "1M",
               "referer": "http://127.0.0.1:1/", "user-agent": "clients-test", "all-proxy": "http://127.0.0.1:1",
               "header": ["X-One: 1", "X-Two: 2"]}
    gids = [server.call("aria2.addUri", ["http://127.0.0.1:1/never"], options) for server in both]
    their_global = theirs.call("aria2.getGlobalOption")
    our_global = ours.call("aria2.getGlobalOption")
    our_one = ours.call("aria2.getOption", gids[0])
    their_one = theirs.call("aria2.getOption", gids[1])
    problems = []
    for name, mine, known in (("getGlobalOption", our_global, their_global), ("getOption", our_one, their_one)):
        if not all(isinstance(v, str) for v in mine.values()):
            problems.append(f"{name}: values that are not strings")
        if not set(mine) <= set(known):
            problems.append(f"{name}: names aria2 does not give here: {sorted(set(mine) - set(known))}")
        different = {k: (mine[k], known[k]) for k in mine if k in known and k != "dir" and mine[k] != known[k]}
        if name == "getOption" and different:
            problems.append(f"getOption: values other than aria2's (ours, aria2's): {different}")
    for needed in ("dir", "max-concurrent-downloads", "max-overall-download-limit", "split",
                   "max-connection-per-server", "min-split-size", "max-download-limit", "continue"):
        if needed not in our_global:
            problems.append(f"getGlobalOption lacks {needed}")
    for name in options:
        if name != "pause" and name not in our_one:
            problems.append(f"getOption lacks {name}, which the download was added with")
    if our_one.get("dir") != str(ours.dir):
        problems.append(f"getOption's dir is {our_one.get('dir')!r}")
    assert not problems, "\n".join(problems)


def get_answers(server):
    """The GET form (method, id, params as base64 of the JSON array) and JSONP: status,
    Content-Type and the answer (JSONP's callback unwrapped) of each."""
    import base64
    import urllib.parse

    out = {}

    def keep(name, status, headers, text):
        content_type = {k.lower(): v for k, v in headers.items()}.get("content-type", "").split(";")[0]
        body = text.decode() if isinstance(text, bytes) else text
        wrapped = re.fullmatch(r"(\w+)\((.*)\)", body, re.S)
        parsed = json.loads(wrapped.group(2) if wrapped else body)
        out[name] = {"http": status, "type": content_type, "callback": wrapped.group(1) if wrapped else None,
                     "answer": parsed}

    keep("get", *server.get_call("aria2.getGlobalStat"))
    keep("get.jsonp", *server.get_call("aria2.getGlobalStat", jsoncallback="cb"))
    keep("get.jsonp.error", *server.get_call("aria2.getGlobalStat", token="token:wrong", jsoncallback="cb"))
    keep("get.unknown", *server.get_call("aria2.noSuchMethod"))
    keep("get.no-params", *server.get_raw({"method": "aria2.getVersion", "id": "1"}))
    keep("get.bad-base64", *server.get_raw({"method": "aria2.getVersion", "id": "1", "params": "!!!"}))
    keep("get.nothing", *server.get_raw(""))
    batch = [server.request("aria2.getGlobalStat", id=1), server.request("aria2.noSuchMethod", id=2)]
    params = base64.b64encode(json.dumps(batch).encode()).decode()
    keep("get.batch", *server.get_raw("params=" + urllib.parse.quote(params)))
    keep("get.batch.jsonp", *server.get_raw("params=" + urllib.parse.quote(params) + "&jsoncallback=cb"))
    return out


def test_get_and_jsonp_have_aria2s_shapes(both):
    ours, theirs = both
    our_answers = get_answers(ours)
    their_answers = get_answers(theirs)
    differences = []
    for name, answer in their_answers.items():
        differences += [d.replace("$", name, 1) for d in shape_diff(our_answers[name], answer)]
    # Content types and callbacks to the letter: a browser runs JSONP by them.
    for name in their_answers:
        for key in ("type", "callback"):
            if our_answers[name][key] != their_answers[name][key]:
                differences.append(f"{name}.{key}: {our_answers[name][key]!r} where aria2 has {their_answers[name][key]!r}")
    assert not differences, "\n".join(differences) + "\n\naria2c's:\n" + json.dumps(their_answers, indent=1)
