#!/usr/bin/python3
"""The FTP servers of the tests and benchmarks (pyftpdlib, from Debian's python3-pyftpdlib), one
process serving one folder read-only on several loopback ports, each in its own way:

  --plain PORT      FTP
  --norest PORT     FTP that refuses REST (no restarts, so no ranges: one connection only)
  --explicit PORT   FTP with AUTH TLS (explicit FTPS; TLS optional, as most servers have it)
  --implicit PORT   FTPS with TLS from the first byte (implicit FTPS)

--user NAME --password PASS is the one login (anonymous logins are refused); --cert and --key
(PEM) are the TLS servers' certificate; --rate BYTES limits each data connection to BYTES per
second on the servers without TLS (the benchmarks' per-connection limit); --log FILE gets one
line per login, per command (with its reply code) and per transfer.
Runs until killed.
"""
import argparse
import logging
import time

from pyftpdlib.authorizers import DummyAuthorizer
from pyftpdlib.handlers import FTPHandler, ThrottledDTPHandler, TLS_DTPHandler, TLS_FTPHandler
from pyftpdlib.ioloop import IOLoop
from pyftpdlib.servers import FTPServer


def without_rest(handler):
    """A handler class like `handler` that does not know REST (it answers 500)."""
    commands = {name: spec for name, spec in handler.proto_cmds.items() if name != "REST"}
    return type("NoRest" + handler.__name__, (handler,), {"proto_cmds": commands})


class SteadyDataHandler(ThrottledDTPHandler):
    """A data connection held to `write_limit` bytes per second at every moment: pyftpdlib's
    own counts whole seconds, so that a connection sends up to twice its limit in its first
    second and a short transfer hardly feels the limit."""

    def __init__(self, sock, cmd_channel):
        super().__init__(sock, cmd_channel)
        self._steady_start = None
        self._steady_sent = 0

    def _throttle_bandwidth(self, len_chunk, max_speed):
        now = time.monotonic()
        if self._steady_start is None:
            self._steady_start = now
        self._steady_sent += len_chunk
        delay = self._steady_start + self._steady_sent / max_speed - now
        if delay > 0.002:
            def unsleep():
                self.add_channel(events=self.ioloop.READ if self.receive else self.ioloop.WRITE)

            self.del_channel()
            self._cancel_throttler()
            self._throttler = self.ioloop.call_later(delay, unsleep, _errback=self.handle_error)


class TLSDataHandler(TLS_DTPHandler):
    """pyftpdlib's TLS data connection, which takes a client's TLS handshake before the
    transfer command: pyftpdlib's own closes a data connection that has bytes to read before
    the command (it takes that for a disconnection), and libcurl starts the handshake as soon as
    it connects."""

    def readable(self):
        return self._ssl_accepting or TLS_DTPHandler.readable(self)


class ImplicitTLSHandler(TLS_FTPHandler):
    """TLS from the first byte: the banner comes once the handshake is done."""

    def handle(self):
        self.secure_connection(self.ssl_context)

    def handle_ssl_established(self):
        TLS_FTPHandler.handle(self)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--plain", type=int)
    parser.add_argument("--norest", type=int)
    parser.add_argument("--explicit", type=int)
    parser.add_argument("--implicit", type=int)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--rate", type=int, default=0)
    parser.add_argument("--log")
    arguments = parser.parse_args()

    logging.basicConfig(
        filename=arguments.log, level=logging.INFO if arguments.log else logging.WARNING,
        format="%(asctime)s %(message)s")
    authorizer = DummyAuthorizer()
    authorizer.add_user(arguments.user, arguments.password, arguments.root, perm="elr")

    def configured(base, name):
        # Every command in the log with its reply code (pyftpdlib logs a few by default): the
        # tests read which commands each connection sent.
        attributes = {"authorizer": authorizer, "banner": "slipstream test FTP (%s)" % name,
                      "log_cmds_list": sorted(base.proto_cmds)}
        if arguments.rate and not issubclass(base, TLS_FTPHandler):
            # Each data connection its own limit (a class per server: the limit is a class attribute).
            attributes["dtp_handler"] = type("Steady", (SteadyDataHandler,), {"read_limit": 0, "write_limit": arguments.rate})
        if issubclass(base, TLS_FTPHandler):
            attributes.update(
                certfile=arguments.cert, keyfile=arguments.key, ssl_context=None, dtp_handler=TLSDataHandler)
        return type(name, (base,), attributes)

    loop = IOLoop.instance()
    handlers = [
        (arguments.plain, configured(FTPHandler, "plain")),
        (arguments.norest, configured(without_rest(FTPHandler), "norest")),
        (arguments.explicit, configured(TLS_FTPHandler, "explicit")),
        (arguments.implicit, configured(ImplicitTLSHandler, "implicit")),
    ]
    for port, handler in handlers:
        if port:
            FTPServer(("127.0.0.1", port), handler, ioloop=loop)
    loop.loop()


if __name__ == "__main__":
    main()
