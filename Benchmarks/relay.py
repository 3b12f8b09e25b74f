"""A TCP relay for Benchmarks/ftp.sh: each connection to LISTEN_PORT on loopback is relayed to
TARGET_PORT, with what flows back to the client held to BYTES_PER_SECOND per connection (small
slices at even times), so that sshd, which has no limit of its own, gets a per-connection limit
without root (tc needs it).

    python3 Benchmarks/relay.py LISTEN_PORT TARGET_PORT BYTES_PER_SECOND
"""
import asyncio
import sys

listen_port, target_port, rate = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
SLICE = 16 << 10


async def pump(reader, writer, limit):
    loop = asyncio.get_running_loop()
    start = loop.time()
    sent = 0
    try:
        while data := await reader.read(SLICE):
            if limit:
                delay = start + sent / limit - loop.time()
                if delay > 0:
                    await asyncio.sleep(delay)
            writer.write(data)
            await writer.drain()
            sent += len(data)
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()


async def relay(client_reader, client_writer):
    try:
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target_port)
    except OSError:
        client_writer.close()
        return
    await asyncio.gather(pump(client_reader, server_writer, 0), pump(server_reader, client_writer, rate))


async def main():
    server = await asyncio.start_server(relay, "127.0.0.1", listen_port)
    async with server:
        await server.serve_forever()


asyncio.run(main())
