"""A small HTTP/1.1 server for Benchmarks/stdout.sh: serves the files of a folder with byte
ranges and keep-alive, each TCP connection limited to a steady rate over all the requests it
carries (a link limited per connection). nginx's limit_rate holds each request, not each
connection: a client that asks for many small ranges on one connection gets most of them at
full speed, which says nothing about a link limited per connection.

    python3 Benchmarks/connlimit.py FOLDER BYTES_PER_SECOND

Prints the port it listens on (127.0.0.1), then serves until killed.
"""
import http.server
import os
import re
import sys
import time

folder, rate = sys.argv[1], int(sys.argv[2])
CHUNK = 64 << 10


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        # When the connection's link is free again: bytes leave at `rate` from then on; time
        # spent idle is not saved up for a burst.
        self.free_at = time.monotonic()

    def do_GET(self):
        path = os.path.join(folder, os.path.basename(self.path.split("?")[0]))
        if not os.path.isfile(path):
            self.send_error(404)
            return
        size = os.path.getsize(path)
        start, end = 0, size - 1
        match = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        if match:
            start = int(match.group(1))
            end = min(int(match.group(2)), size - 1) if match.group(2) else size - 1
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(end - start + 1))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("ETag", f'"{size}-{int(os.path.getmtime(path))}"')
        self.end_headers()
        with open(path, "rb") as f:
            f.seek(start)
            left = end - start + 1
            while left > 0:
                chunk = f.read(min(CHUNK, left))
                now = time.monotonic()
                self.free_at = max(self.free_at, now)
                if self.free_at > now:
                    time.sleep(self.free_at - now)
                try:
                    self.wfile.write(chunk)
                except (BrokenPipeError, ConnectionResetError):
                    return
                self.free_at += len(chunk) / rate
                left -= len(chunk)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
