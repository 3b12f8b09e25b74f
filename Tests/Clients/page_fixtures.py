"""Helpers for the page's browser test (test_page.py), kept apart from conftest.py.

- page_assets(): the page's files, read from the Swift sources (Sources/SlipstreamDaemon/Page),
  for serving the page in front of aria2c, which has no page of its own.
- PageFront: serves those files on loopback with the daemon's strict Content-Security-Policy and
  passes /jsonrpc (the WebSocket) through to an RPC server, so the page meets aria2c on its own
  origin, as it meets the daemon.
- FileServer: a loopback file server (ranges, ?rate= throttling, 404s) for when the test nginx
  ($SLIPSTREAM_TEST_NGINX_PORT) is not there.
- start_rpc_server(): `slipstream daemon` or `aria2c --enable-rpc` on a free port.
- tone_mp3(): an MP3 of a sine tone (ffmpeg), for playing a download while it runs.

Run as a program, it starts aria2c and the page in front of it, for working on the page:
    python3 Tests/Clients/page_fixtures.py [PORT]
"""

import asyncio
import http.server
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGE_SOURCES = ROOT / "Sources" / "SlipstreamDaemon" / "Page"

# The policy the daemon sends with its page: files of its own origin only, and its WebSocket.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def page_assets(folder=PAGE_SOURCES):
    """{path: (content type, bytes)} from DaemonPage.files and the raw strings it names."""
    texts = {}
    for swift in sorted(folder.glob("*.swift")):
        source = swift.read_text()
        for match in re.finditer(r'static let (\w+) = #"""\n(.*?)\n( *)"""#', source, re.S):
            name, body, indent = match.group(1), match.group(2), match.group(3)
            lines = [line[len(indent):] if line.startswith(indent) else line.lstrip(" ") for line in body.split("\n")]
            texts[name] = "\n".join(lines) + "\n"
    table = (folder / "DaemonPage.swift").read_text()
    files = {}
    for path, content_type, name in re.findall(r'\("([^"]+)", "([^"]+)", (\w+)\)', table):
        files[path] = (content_type, texts[name].encode())
    if "/" not in files:
        raise RuntimeError(f"no page found in {folder}")
    return files


class PageFront:
    """Serves the page's files and passes /jsonrpc through to 127.0.0.1:rpc_port."""

    def __init__(self, rpc_port, port=0, files=None):
        self.rpc_port = rpc_port
        self.files = files if files is not None else page_assets()
        self.loop = asyncio.new_event_loop()
        self.started = threading.Event()
        self.port = port
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        if not self.started.wait(10):
            raise RuntimeError("the page server did not start")

    def _run(self):
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", self.port))
        self.port = self.server.sockets[0].getsockname()[1]
        self.started.set()
        self.loop.run_forever()

    async def _serve(self, reader, writer):
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            target = head.split(b" ", 2)[1].decode()
            path = urllib.parse.urlsplit(target).path
            if path == "/jsonrpc":
                await self._pass_through(head, reader, writer)
                return
            if path in self.files:
                content_type, body = self.files[path]
                status = "200 OK"
            else:
                content_type, body, status = "text/plain", b"not found\n", "404 Not Found"
            writer.write(
                f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
                f"Content-Security-Policy: {CSP}\r\nX-Content-Type-Options: nosniff\r\n"
                "Cache-Control: no-store\r\nConnection: close\r\n\r\n".encode() + body)
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, IndexError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    async def _pass_through(self, head, reader, writer):
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.rpc_port)
        up_writer.write(head)

        async def pipe(source, sink):
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except ConnectionError:
                pass
            finally:
                sink.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    def close(self):
        async def stop():
            self.server.close()
            others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)
            self.loop.stop()

        self.loop.call_soon_threadsafe(lambda: self.loop.create_task(stop()))
        self.thread.join(10)


class _FileHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    root = None

    def log_message(self, *args):
        pass

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        parts = url.path.split("/")
        if len(parts) != 3 or parts[1] not in ("files", "rate") or not parts[2] or parts[2].startswith("."):
            return self._fail(404)
        file = self.root / urllib.parse.unquote(parts[2])
        if not file.is_file():
            return self._fail(404)
        size = file.stat().st_size
        start, end = 0, size - 1
        ranged = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        if ranged:
            start = int(ranged.group(1))
            end = min(size - 1, int(ranged.group(2))) if ranged.group(2) else size - 1
            if start >= size:
                return self._fail(416)
        rate = 0
        if parts[1] == "rate":
            text = urllib.parse.parse_qs(url.query).get("rate", ["0"])[0].lower()
            scale = {"k": 1024, "m": 1 << 20}.get(text[-1:], 1)
            rate = int(text.rstrip("km") or 0) * scale
        self.send_response(206 if ranged else 200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(end - start + 1))
        self.send_header("Accept-Ranges", "bytes")
        if ranged:
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.end_headers()
        chunk = 16384
        began = time.monotonic()
        sent = 0
        with file.open("rb") as f:
            f.seek(start)
            left = end - start + 1
            try:
                while left > 0:
                    data = f.read(min(chunk, left))
                    self.wfile.write(data)
                    left -= len(data)
                    sent += len(data)
                    if rate:
                        ahead = sent / rate - (time.monotonic() - began)
                        if ahead > 0:
                            time.sleep(ahead)
            except (BrokenPipeError, ConnectionResetError):
                pass

    def _fail(self, code):
        body = b"no\n"
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class FileServer:
    """Files of `root` at /files/NAME, throttled at /rate/NAME?rate=64k; 404 for anything else."""

    def __init__(self, root):
        handler = type("Handler", (_FileHandler,), {"root": pathlib.Path(root)})
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def wait_for_port(port, process, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the RPC server exited with {process.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listened on port {port} within {seconds} s")


_TONES = {}


def tone_mp3(seconds):
    """The bytes of a 128 kbit/s MP3 of a 440 Hz tone lasting `seconds` (made once per run)."""
    if seconds not in _TONES:
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder) / "tone.mp3"
            subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", f"sine=frequency=440:duration={seconds}",
                            "-c:a", "libmp3lame", "-b:a", "128k", str(path)], check=True, timeout=300)
            _TONES[seconds] = path.read_bytes()
    return _TONES[seconds]


def rpc_command(kind, port, secret, folder):
    # kind: "slipstream" (the daemon, $SLIPSTREAM_BIN) or "aria2c".
    """The command line of `slipstream daemon` or `aria2c --enable-rpc`, with the same options
    (no secret when `secret` is empty)."""
    common = [f"--rpc-listen-port={port}"] + ([f"--rpc-secret={secret}"] if secret else []) + ["-d", str(folder)]
    if kind == "aria2c":
        return ["aria2c", "--enable-rpc", "--no-conf", "--rpc-allow-origin-all", "--quiet"] + common
    binary = os.environ.get("SLIPSTREAM_BIN", str(ROOT / ".build" / "debug" / "slipstream"))
    return [binary, "daemon"] + common


def start_rpc_server(kind, secret, folder, log, port=None):
    port = port or free_port()
    process = subprocess.Popen(rpc_command(kind, port, secret, folder), stdout=log, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL)
    try:
        wait_for_port(port, process)
    except Exception:
        stop_process(process)
        raise
    return process, port


def stop_process(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def _interrupt(*_):
    raise KeyboardInterrupt


if __name__ == "__main__":
    # Development: aria2c with secret "dev" and the page in front of it, until SIGINT or SIGTERM.
    signal.signal(signal.SIGTERM, _interrupt)
    folder = pathlib.Path(tempfile.mkdtemp(prefix="slipstream-page-dev."))
    www = folder / "www"
    www.mkdir()
    for name, size in (("small.bin", 2 << 20), ("big.bin", 64 << 20)):
        with open(www / name, "wb") as f:
            f.write(os.urandom(size))
    files = FileServer(www)
    process, rpc_port = start_rpc_server("aria2c", "dev", folder / "downloads", sys.stderr)
    front = PageFront(rpc_port, port=int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    print(f"page: http://127.0.0.1:{front.port}/  (secret: dev)")
    print(f"files: http://127.0.0.1:{files.port}/files/small.bin, /rate/big.bin?rate=512k, /files/missing")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        front.close()
        files.close()
        stop_process(process)
        shutil.rmtree(folder, ignore_errors=True)
