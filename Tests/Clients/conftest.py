"""Fixtures of the client tests: `slipstream daemon` and `aria2c --enable-rpc` started on free
loopback ports with a secret and a download folder of their own, files put into the test nginx's
folder, and a raw JSON-RPC caller (POST, GET with base64 params and JSONP, WebSocket).

Environment (scripts/test.sh and scripts/clients.sh export it):
  SLIPSTREAM_BIN              the slipstream binary (default .build/debug/slipstream)
  SLIPSTREAM_TEST_NGINX_PORT  the test nginx's port (scripts/nginx.conf.in for its locations)
  SLIPSTREAM_TEST_WWW         the folder it serves under /files/
  SLIPSTREAM_TEST_WORK        its run folder, which holds access.log (optional)
  SLIPSTREAM_CLIENTS_TARGETS  which servers the two-server tests run against, comma-separated
                              (default "slipstream,aria2c")
  SLIPSTREAM_CLIENTS_DAEMON   aria2c runs the daemon-only tests against aria2c (a check of the
                              tests themselves where aria2 behaves alike; default slipstream)

Fixtures:
  server   each of the two servers, in turn (tests that must hold for aria2c as well)
  daemon   `slipstream daemon` only (what aria2 does not do)
  aria2    `aria2c --enable-rpc` only
  both     a (daemon, aria2c) pair, for the side-by-side comparison
  www      puts files into the nginx folder and gives their URLs
  start    starts a server of a kind with extra arguments (for tests that restart one)
"""

import base64
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
import websocket

ROOT = Path(__file__).resolve().parents[2]
SECRET_LENGTH = 24
START_LIMIT = 30.0  # seconds a server may take to answer on its port (a debug build, a busy machine)
STOP_LIMIT = 15.0


def slipstream_bin():
    return os.environ.get("SLIPSTREAM_BIN", str(ROOT / ".build" / "debug" / "slipstream"))


def targets():
    names = os.environ.get("SLIPSTREAM_CLIENTS_TARGETS", "slipstream,aria2c")
    return [n.strip() for n in names.split(",") if n.strip()]


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, limit, what, interval=0.05):
    """Polls `predicate` until it returns a true value (returned) or `limit` seconds pass
    (fails the test, saying `what` was awaited)."""
    deadline = time.monotonic() + limit
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"waited {limit} s for {what}")
        time.sleep(interval)


class RPCError(Exception):
    """A JSON-RPC error answer: `code` and `message` as the server gave them."""

    def __init__(self, code, message, status=None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status


class Server:
    """One running JSON-RPC server (`kind` is "slipstream" or "aria2c")."""

    def __init__(self, kind, port, secret, folder, process, log_path, arguments):
        self.kind = kind
        self.port = port
        self.secret = secret
        self.dir = folder
        self.process = process
        self.log_path = log_path
        self.arguments = arguments
        self.url = f"http://127.0.0.1:{port}/jsonrpc"
        self.ws_url = f"ws://127.0.0.1:{port}/jsonrpc"
        self._ids = 0

    def __repr__(self):
        return f"<{self.kind} on {self.port}>"

    @property
    def pid(self):
        return self.process.pid

    def next_id(self):
        self._ids += 1
        return f"{self.kind}-{self._ids}"

    def token(self):
        return f"token:{self.secret}"

    # Raw transport -------------------------------------------------------------------------

    def post_raw(self, body, headers=None, timeout=30):
        """POSTs bytes (or a JSON-able value) to /jsonrpc: (HTTP status, headers, body bytes)."""
        if not isinstance(body, (bytes, bytearray)):
            body = json.dumps(body).encode()
        all_headers = {"Content-Type": "application/json"}
        all_headers.update(headers or {})
        request = urllib.request.Request(self.url, data=bytes(body), headers=all_headers, method="POST")
        return self._open(request, timeout)

    def get_raw(self, query, headers=None, timeout=30, path="/jsonrpc"):
        """GETs /jsonrpc?QUERY (a dict or string): (HTTP status, headers, body bytes)."""
        if isinstance(query, dict):
            query = urllib.parse.urlencode(query)
        url = f"http://127.0.0.1:{self.port}{path}" + (f"?{query}" if query else "")
        return self._open(urllib.request.Request(url, headers=headers or {}), timeout)

    @staticmethod
    def _open(request, timeout):
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                return answer.status, dict(answer.headers), answer.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    # Calls ---------------------------------------------------------------------------------

    def request(self, method, *params, token=True, id=None):
        """The request object of a call, the token first in params (token=False: none; a string:
        that token)."""
        if token is True:
            params = (self.token(),) + params
        elif isinstance(token, str):
            params = (token,) + params
        return {"jsonrpc": "2.0", "id": id if id is not None else self.next_id(), "method": method,
                "params": list(params)}

    def answer(self, method, *params, token=True):
        """POSTs one call: the whole answer object (result or error), and the HTTP status."""
        status, _, body = self.post_raw(self.request(method, *params, token=token))
        return json.loads(body), status

    def call(self, method, *params, token=True):
        """POSTs one call: its result, or raises RPCError."""
        answer, status = self.answer(method, *params, token=token)
        if "error" in answer:
            raise RPCError(answer["error"].get("code"), answer["error"].get("message"), status)
        return answer["result"]

    def get_call(self, method, *params, token=True, jsoncallback=None, id="get"):
        """One call by GET (params as base64 of the JSON array): (status, headers, body text)."""
        request = self.request(method, *params, token=token, id=id)
        query = {"method": method, "id": id,
                 "params": base64.b64encode(json.dumps(request["params"]).encode()).decode()}
        if jsoncallback:
            query["jsoncallback"] = jsoncallback
        status, headers, body = self.get_raw(query)
        return status, headers, body.decode()

    def websocket(self, timeout=30, **options):
        """A WebSocket to /jsonrpc (websocket-client; it sends the server's own Origin)."""
        return websocket.create_connection(self.ws_url, timeout=timeout, **options)

    # Conveniences --------------------------------------------------------------------------

    def add(self, url, **options):
        """addUri of one URL (options with `_` for `-`): its gid."""
        uris = url if isinstance(url, list) else [url]
        return self.call("aria2.addUri", uris, {k.replace("_", "-"): v for k, v in options.items()})

    def status(self, gid, keys=None):
        return self.call("aria2.tellStatus", gid, keys) if keys else self.call("aria2.tellStatus", gid)

    def wait_status(self, gid, wanted, limit=60):
        """Waits until the download's status is one of `wanted` (a word or a tuple): its status."""
        wanted = (wanted,) if isinstance(wanted, str) else tuple(wanted)
        seen = {}

        def check():
            seen["s"] = self.status(gid)
            return seen["s"]["status"] in wanted and seen["s"]

        try:
            return wait_until(check, limit, f"{gid} to become {wanted}", 0.1)
        except pytest.fail.Exception:
            raise AssertionError(f"{gid} did not become {wanted}: last {seen.get('s')}") from None

    def alive(self):
        return self.process.poll() is None

    def log(self):
        try:
            return Path(self.log_path).read_text(errors="replace")
        except OSError:
            return ""

    def stop(self, sig=signal.SIGTERM):
        """Stops the server by its pid: its exit status."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(STOP_LIMIT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


def port_answers(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def command(kind, port, secret, folder, extra=()):
    """The command line that starts a server of `kind`: the same arguments for both (the brief's
    contract), plus aria2c's --no-conf so that no user configuration changes it."""
    common = [f"--rpc-listen-port={port}", f"--rpc-secret={secret}", "-d", str(folder)]
    if kind == "aria2c":
        return ["aria2c", "--enable-rpc", "--no-conf"] + common + list(extra)
    return [slipstream_bin(), "daemon"] + common + list(extra)


def start_server(kind, tmp, extra=(), secret=None, port=None, folder=None, wait=True):
    """Starts a server in `tmp` (a Path): returns a Server once its port answers."""
    port = port or free_port()
    secret = secret if secret is not None else secrets.token_hex(SECRET_LENGTH // 2)
    folder = Path(folder) if folder else tmp / f"downloads-{kind}-{port}"
    folder.mkdir(parents=True, exist_ok=True)
    log_path = tmp / f"{kind}-{port}-{time.monotonic_ns()}.log"
    arguments = command(kind, port, secret, folder, extra)
    if kind != "aria2c" and not Path(arguments[0]).exists():
        pytest.fail(f"no slipstream binary at {arguments[0]} (set SLIPSTREAM_BIN or build it)")
    log = open(log_path, "wb")
    process = subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                               cwd=tmp)
    log.close()
    server = Server(kind, port, secret, folder, process, log_path, arguments)
    if wait:
        deadline = time.monotonic() + START_LIMIT
        while not port_answers(port):
            if process.poll() is not None:
                pytest.fail(f"{kind} exited with {process.returncode} before answering: "
                            f"{' '.join(arguments)}\n{server.log()}")
            if time.monotonic() > deadline:
                server.stop(signal.SIGKILL)
                pytest.fail(f"{kind} did not answer on port {port} in {START_LIMIT} s\n{server.log()}")
            time.sleep(0.05)
    return server


class Starter:
    """Starts servers for one test and stops every one of them at its end, printing their logs
    (pytest shows them for a failing test)."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.servers = []

    def __call__(self, kind, extra=(), **kwargs):
        server = start_server(kind, self.tmp, extra, **kwargs)
        self.servers.append(server)
        return server

    def close(self):
        for server in self.servers:
            server.stop()
            print(f"----- {server.kind} log ({' '.join(server.arguments)}), exit {server.process.returncode}")
            print(server.log()[-20000:])


@pytest.fixture
def start(tmp_path):
    starter = Starter(tmp_path)
    yield starter
    starter.close()


@pytest.fixture(params=targets())
def server(request, start):
    return start(request.param)


def daemon_kind():
    """The kind the daemon-only tests start: slipstream, or (SLIPSTREAM_CLIENTS_DAEMON=aria2c) aria2c,
    to check the tests themselves against aria2 where it behaves alike."""
    return os.environ.get("SLIPSTREAM_CLIENTS_DAEMON", "slipstream")


@pytest.fixture
def daemon(start):
    return start(daemon_kind())


@pytest.fixture
def aria2(start):
    return start("aria2c")


@pytest.fixture
def both(start):
    """(ours, aria2c). With SLIPSTREAM_CLIENTS_TARGETS=aria2c, aria2c is compared with itself: the
    comparison's own check, before the daemon exists."""
    ours = start("slipstream") if "slipstream" in targets() else start("aria2c")
    return ours, start("aria2c")


# The test nginx ------------------------------------------------------------------------------


class WWW:
    """Files in the test nginx's folder, in a folder of this test's own (removed at its end)."""

    def __init__(self):
        port = os.environ.get("SLIPSTREAM_TEST_NGINX_PORT")
        root = os.environ.get("SLIPSTREAM_TEST_WWW")
        if not port or not root:
            pytest.fail("SLIPSTREAM_TEST_NGINX_PORT and SLIPSTREAM_TEST_WWW are not set: run scripts/clients.sh")
        self.port = int(port)
        self.base = f"http://127.0.0.1:{port}"
        self.name = f"clients-{secrets.token_hex(6)}"
        self.folder = Path(root) / self.name
        self.folder.mkdir()
        self.folder.chmod(0o755)

    def put(self, name, size=None, data=None):
        """Writes a file of `size` random bytes (or `data`): (its plain URL, its bytes)."""
        data = data if data is not None else os.urandom(size)
        path = self.folder / name
        path.write_bytes(data)
        path.chmod(0o644)
        return self.url(name), data

    def url(self, name, location="files"):
        return f"{self.base}/{location}/{self.name}/{name}"

    def rate_url(self, name, rate):
        """The same file, each connection limited to `rate` (nginx's syntax: 100k, 2m)."""
        return f"{self.base}/rate/{self.name}/{name}?rate={rate}"

    def missing_url(self):
        return self.url("no-such-file")

    def access_log(self):
        """nginx's access log lines of this test's files (empty when its run folder is unknown)."""
        work = os.environ.get("SLIPSTREAM_TEST_WORK")
        if not work or not (Path(work) / "access.log").exists():
            return None
        return [line for line in (Path(work) / "access.log").read_text(errors="replace").splitlines()
                if self.name in line]

    def close(self):
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture
def www():
    files = WWW()
    yield files
    files.close()


# Notifications -------------------------------------------------------------------------------


class Listener:
    """Reads a WebSocket in a thread: notifications into `events` ((method, gid) pairs), other
    messages into `answers` (by id)."""

    def __init__(self, ws):
        self.ws = ws
        self.events = []
        self.answers = {}
        self.lock = threading.Condition()
        self.closed = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while True:
            try:
                text = self.ws.recv()
            except Exception:  # closed, or a timeout of the socket: the end of listening
                break
            if not text:
                break
            message = json.loads(text)
            with self.lock:
                if isinstance(message, dict) and "method" in message and "id" not in message:
                    for event in message.get("params", []):
                        self.events.append((message["method"], event.get("gid")))
                elif isinstance(message, list):
                    self.answers[tuple(sorted(str(m.get("id")) for m in message))] = message
                else:
                    self.answers[str(message.get("id"))] = message
                self.lock.notify_all()
        with self.lock:
            self.closed = True
            self.lock.notify_all()

    def wait_event(self, method, gid, limit=60):
        with self.lock:
            if not self.lock.wait_for(lambda: (method, gid) in self.events or self.closed, limit):
                pytest.fail(f"no {method} for {gid} in {limit} s; got {self.events}")
            assert (method, gid) in self.events, f"socket closed before {method} for {gid}; got {self.events}"

    def wait_answer(self, key, limit=30):
        with self.lock:
            if not self.lock.wait_for(lambda: key in self.answers or self.closed, limit):
                pytest.fail(f"no answer {key} in {limit} s")
            assert key in self.answers, f"socket closed before the answer {key}"
            return self.answers[key]

    def close(self):
        try:
            self.ws.close()
        finally:
            self.thread.join(10)
