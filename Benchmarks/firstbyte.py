"""Times a command from its start to the first byte it writes to standard output (for
Benchmarks/play.sh: a player writing WAV to stdout writes its header when its output opens,
just before the first frame), then stops it. Prints the seconds.

    python3 Benchmarks/firstbyte.py COMMAND...
"""
import subprocess
import sys
import time

start = time.monotonic()
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
first = process.stdout.read(1)
elapsed = time.monotonic() - start
process.kill()
process.wait()
print(f"{elapsed:.4f}" if first else "nan")
