"""A tiny HTTP server for Benchmarks/play.sh: serves the files of a folder at a steady byte
rate (small chunks at even intervals, no first-second burst as nginx's limit_rate gives), so
that "a link at twice the bit rate" means just that from the first byte.

    python3 Benchmarks/throttle.py FOLDER PORT BYTES_PER_SECOND
"""
import http.server
import os
import sys
import time

folder, port, rate = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
CHUNK = 1024


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        path = os.path.join(folder, os.path.basename(self.path.split("?")[0]))
        if not os.path.isfile(path):
            self.send_error(404)
            return
        size = os.path.getsize(path)
        self.send_response(200)
        self.send_header("Content-Type", "audio/mpeg")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        start = time.monotonic()
        sent = 0
        with open(path, "rb") as f:
            while chunk := f.read(CHUNK):
                due = start + sent / rate
                delay = due - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                try:
                    self.wfile.write(chunk)
                except (BrokenPipeError, ConnectionResetError):
                    return
                sent += len(chunk)

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
