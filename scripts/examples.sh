#!/usr/bin/env bash
# Builds the Examples package (a separate package that uses the libraries by path, as their
# users do) and checks that every example the README's "Using the library" shows is, to the
# letter, the marked part ("// README: NAME" to "// README end") of an example that builds:
# the README's code cannot rot. Then runs the package's tests (Tests/LibraryUseTests: the
# libraries' public API as a program meets it) against the loopback services scripts/test.sh
# starts and names in the environment (SLIPSTREAM_TEST_NGINX_PORT, SLIPSTREAM_TEST_WWW,
# SLIPSTREAM_TEST_AUDIO); without them the tests are skipped, said in one line.
#   scripts/examples.sh
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --package-path Examples

python3 - <<'PYTHON'
import pathlib, re, sys

readme = pathlib.Path("README.md").read_text()
section = readme.split("## Using the library", 1)
if len(section) < 2:
    sys.exit("README.md has no '## Using the library' section")
blocks = re.findall(r"```swift\n(.*?)```", section[1].split("\n## ", 1)[0], re.S)
marked = {}
for source in pathlib.Path("Examples/Sources").rglob("*.swift"):
    for name, body in re.findall(r"// README: (\w+)\n(.*?)// README end", source.read_text(), re.S):
        marked[name] = body
missing = [name for name, body in marked.items() if body not in blocks]
stray = [block.splitlines()[0] for block in blocks if block not in marked.values()]
for name in missing:
    print(f"examples: the README does not show the {name} example as it is in Examples/", file=sys.stderr)
for line in stray:
    print(f"examples: a README example is in no file of Examples/: {line}", file=sys.stderr)
if missing or stray or not marked:
    sys.exit(1)
print(f"examples: {len(marked)} README examples match Examples/, which builds")
PYTHON

if [[ -n "${SLIPSTREAM_TEST_NGINX_PORT:-}" && -n "${SLIPSTREAM_TEST_WWW:-}" && -n "${SLIPSTREAM_TEST_AUDIO:-}" ]]; then
    swift test --package-path Examples
else
    echo "examples: the library-use tests need nginx and the audio fixtures: skipped (scripts/test.sh runs them)"
fi
