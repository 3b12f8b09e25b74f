"""The daemon's page in a real browser (Debian's chromium, driven by Playwright).

Each test opens the page, gives the secret and drives the queue through the page alone: adding
URLs from the test nginx ($SLIPSTREAM_TEST_NGINX_PORT, files in $SLIPSTREAM_TEST_WWW; or a file
server of its own on loopback when those are not set), pausing, resuming, reordering, removing,
the speed limit, a 404 shown as an error, the pieces picture moving, and the layout at a phone's
width.

The same tests run against `slipstream daemon` (its binary in $SLIPSTREAM_BIN, by default
.build/debug/slipstream), which serves the page itself, and against `aria2c --enable-rpc`, in
front of which page_fixtures.PageFront serves the page from the Swift sources with the daemon's
Content-Security-Policy. $SLIPSTREAM_CLIENTS_TARGETS picks them (default "slipstream,aria2c"), as
for the other client tests.
Screenshots go to $SLIPSTREAM_PAGE_SHOTS (default: a new folder under /tmp, printed).

    python3 -m pytest -v Tests/Clients/test_page.py
"""

import hashlib
import json
import os
import pathlib
import re
import secrets
import shutil
import sys
import tempfile
import time
import urllib.request

import pytest
from playwright.sync_api import expect, sync_playwright

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import page_fixtures  # noqa: E402

SECRET = "page-" + secrets.token_hex(8)
CHROMIUM = os.environ.get("SLIPSTREAM_CHROMIUM", "/usr/bin/chromium")
# How long a download that should finish on loopback may take, at most.
FINISH = 60_000


def targets():
    """The servers to run against, as the other client tests choose them (conftest.py)."""
    chosen = os.environ.get("SLIPSTREAM_CLIENTS_TARGETS", "slipstream,aria2c")
    return [name.strip() for name in chosen.split(",") if name.strip()]


@pytest.fixture(scope="session")
def shots():
    folder = os.environ.get("SLIPSTREAM_PAGE_SHOTS") or tempfile.mkdtemp(prefix="slipstream-page-shots.")
    path = pathlib.Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots: {path}")
    return path


class Files:
    """Where the test's files are served: `url(name)`, `slow_url(name)`, `put(name, size)`."""

    def __init__(self):
        port = os.environ.get("SLIPSTREAM_TEST_NGINX_PORT")
        www = os.environ.get("SLIPSTREAM_TEST_WWW")
        self.own = None
        if port and www:
            self.folder = pathlib.Path(www)
            self.base = f"http://127.0.0.1:{port}"
        else:
            self.folder = pathlib.Path(tempfile.mkdtemp(prefix="slipstream-page-www."))
            self.own = page_fixtures.FileServer(self.folder)
            self.base = f"http://127.0.0.1:{self.own.port}"
        self.prefix = "page-" + secrets.token_hex(4) + "-"
        self.made = []

    def put(self, name, size):
        data = os.urandom(size)
        path = self.folder / (self.prefix + name)
        path.write_bytes(data)
        self.made.append(path)
        return self.prefix + name, data

    def url(self, name):
        return f"{self.base}/files/{name}"

    def slow_url(self, name, rate="256k"):
        return f"{self.base}/rate/{name}?rate={rate}"

    def close(self):
        for path in self.made:
            path.unlink(missing_ok=True)
        if self.own:
            self.own.close()
            shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="module")
def files():
    served = Files()
    yield served
    served.close()


class Server:
    """`slipstream daemon` or aria2c, and the address of its page (aria2c's through a PageFront)."""

    def __init__(self, kind, folder, secret=SECRET):
        self.kind = kind
        self.secret = secret
        self.downloads = folder / "downloads"
        self.downloads.mkdir()
        self.log = open(folder / "server.log", "wb")
        self.process, self.port = page_fixtures.start_rpc_server(kind, secret, self.downloads, self.log)
        self.front = page_fixtures.PageFront(self.port) if kind == "aria2c" else None
        self.url = f"http://127.0.0.1:{self.front.port if self.front else self.port}/"

    def __getitem__(self, key):
        return getattr(self, key)

    def rpc(self, method, *params):
        """The result of one call to the RPC server itself."""
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": [f"token:{self.secret}", *params]})
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/jsonrpc", data=body.encode(), method="POST")
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read())["result"]

    def restart(self):
        """Stops the server and starts it again on the same port."""
        page_fixtures.stop_process(self.process)
        self.process, _ = page_fixtures.start_rpc_server(self.kind, self.secret, self.downloads, self.log, self.port)

    def close(self):
        if self.front:
            self.front.close()
        page_fixtures.stop_process(self.process)
        self.log.close()


@pytest.fixture(scope="module", params=targets())
def kind(request):
    """Which RPC server the page talks to: "slipstream" (the daemon) or "aria2c"."""
    if request.param == "slipstream":
        binary = pathlib.Path(page_fixtures.rpc_command("slipstream", 0, "", "")[0])
        if not binary.exists():
            pytest.fail(f"no slipstream binary at {binary} (build it, or set SLIPSTREAM_BIN)")
    if not pathlib.Path(CHROMIUM).exists():
        pytest.fail(f"no chromium at {CHROMIUM} (scripts/setup.sh installs it)")
    return request.param


@pytest.fixture(scope="module")
def server(kind, tmp_path_factory):
    started = Server(kind, tmp_path_factory.mktemp(f"page-{kind}"))
    yield started
    started.close()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        # As root there is no sandbox; /dev/shm may be small in a container.
        # The play test's <audio> plays without a sound card (a fake output) or a gesture of its own.
        arguments = ["--no-sandbox", "--disable-dev-shm-usage", "--autoplay-policy=no-user-gesture-required", "--mute-audio"]
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=arguments)
        yield launched
        launched.close()


class Page:
    """One tab on the page, with what it logged: CSP violations and script errors fail the test."""

    def __init__(self, browser, server, **context):
        self.context = browser.new_context(**context)
        self.tab = self.context.new_page()
        self.server = server
        self.problems = []
        self.tab.on("pageerror", lambda error: self.problems.append(f"script error: {error}"))
        self.tab.on("console", self._console)

    def _console(self, message):
        if "Content Security Policy" in message.text or (message.type == "error" and "favicon" not in message.text
                                                          and "404" not in message.text):
            self.problems.append(f"console {message.type}: {message.text}")

    def open(self):
        self.tab.goto(self.server["url"])
        return self

    def sign_in(self, secret=SECRET):
        expect(self.tab.locator("#secret")).to_be_visible()
        self.tab.fill("#secret", secret)
        self.tab.press("#secret", "Enter")
        return self

    def signed_in(self):
        self.open().sign_in()
        expect(self.tab.locator("#app")).to_be_visible()
        return self

    def add(self, *uris, out=None, folder=None, checksum=None):
        self.tab.fill("#add-uris", "\n".join(uris))
        if out or folder or checksum:
            if not self.tab.locator("#add-more").get_attribute("open") is not None:
                self.tab.click("#add-more summary")
            self.tab.fill("#add-out", out or "")
            self.tab.fill("#add-dir", str(folder or ""))
            self.tab.fill("#add-checksum", checksum or "")
        self.tab.click("#add-submit")
        expect(self.tab.locator("#add-uris")).to_have_value("")

    def row(self, name, part=False):
        """The row of the download whose file is `name` (or `name`.part, when `part`)."""
        suffix = r"(\.part)?" if part else ""
        pattern = re.compile(f"^{re.escape(name)}{suffix}$")
        return self.tab.locator("li.download", has=self.tab.locator(".download-name", has_text=pattern))

    def canvas(self, row):
        return row.locator("canvas.pieces-canvas").evaluate("canvas => canvas.toDataURL()")

    def close(self):
        self.context.close()
        assert self.problems == []


@pytest.fixture
def page(browser, server):
    opened = Page(browser, server, viewport={"width": 1100, "height": 900})
    yield opened
    opened.close()


def test_the_page_is_served_with_a_strict_policy(page):
    response = page.tab.goto(page.server["url"])
    assert response.status == 200
    assert response.headers["content-type"].startswith("text/html")
    policy = response.headers.get("content-security-policy", "")
    assert "script-src" in policy or "default-src" in policy, f"no script policy: {policy!r}"
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy, policy
    for path, kind in (("app.js", "javascript"), ("app.css", "text/css")):
        asset = page.tab.request.get(page.server["url"] + path)
        assert asset.status == 200 and kind in asset.headers["content-type"], (path, asset.headers)


def test_the_secret_is_asked_once_and_again_when_wrong(page):
    page.open()
    expect(page.tab.locator("#secret-panel")).to_be_visible()
    expect(page.tab.locator("#secret-error")).to_be_hidden()
    page.sign_in("not-" + SECRET)
    expect(page.tab.locator("#secret-error")).to_be_visible()
    expect(page.tab.locator("#app")).to_be_hidden()
    # The field has the focus: typing and Enter is enough.
    expect(page.tab.locator("#secret")).to_be_focused()
    page.tab.keyboard.type(SECRET)
    page.tab.keyboard.press("Enter")
    expect(page.tab.locator("#app")).to_be_visible()
    expect(page.tab.locator("#connection")).to_have_attribute("data-state", "open")
    # The tab keeps it: a reload does not ask again.
    page.tab.reload()
    expect(page.tab.locator("#app")).to_be_visible()
    expect(page.tab.locator("#secret-panel")).to_be_hidden()


def test_a_download_added_on_the_page_completes(page, files, shots):
    page.signed_in()
    name, data = files.put("small.bin", 3 << 20)
    page.add(files.url(name))
    row = page.row(name)
    expect(row).to_have_attribute("data-status", "complete", timeout=FINISH)
    expect(row.locator(".download-percent")).to_have_text("100 %")
    expect(row.locator(".download-size")).to_have_text("3.0 MiB")
    assert page.tab.locator("#stopped-list").locator(f"li[data-gid='{row.get_attribute('data-gid')}']").count() == 1
    assert (page.server["downloads"] / name).read_bytes() == data
    page.tab.screenshot(path=str(shots / f"{page.server['kind']}-complete.png"), full_page=True)


def test_a_404_shows_as_an_error_with_its_message(page, files):
    page.signed_in()
    name = files.prefix + "missing.bin"
    page.add(files.url(name))
    row = page.row(name)
    expect(row).to_have_attribute("data-status", "error", timeout=FINISH)
    expect(row.locator(".download-error")).to_be_visible()
    expect(row.locator(".download-error")).not_to_have_text("")
    expect(row.locator(".status")).to_have_text("Error")
    # A finished download's button clears it from the list.
    row.locator("[data-action='remove']").click()
    expect(row).to_have_count(0)


def test_mirrors_a_checksum_a_folder_and_a_name(page, files):
    page.signed_in()
    name, data = files.put("mirrored.bin", 2 << 20)
    folder = page.server["downloads"] / "sub"
    folder.mkdir(exist_ok=True)
    out = files.prefix + "renamed.bin"
    checksum = "sha-256=" + hashlib.sha256(data).hexdigest()
    page.add(files.url(name), files.slow_url(name, "1m"), out=out, folder=folder, checksum=checksum)
    row = page.row(out)
    expect(row).to_have_attribute("data-status", "complete", timeout=FINISH)
    assert (folder / out).read_bytes() == data


def test_a_wrong_checksum_is_an_error(page, files):
    page.signed_in()
    name, _ = files.put("corrupt.bin", 1 << 20)
    page.add(files.url(name), checksum="sha-256=" + "0" * 64)
    # The daemon names the part file it keeps, aria2c the file.
    row = page.row(name, part=True)
    expect(row).to_have_attribute("data-status", "error", timeout=FINISH)
    expect(row.locator(".download-error")).not_to_have_text("")


def test_pause_resume_remove_and_the_pieces_move(page, files, shots):
    page.signed_in()
    name, _ = files.put("slow.bin", 32 << 20)
    page.add(files.slow_url(name))
    row = page.row(name)
    expect(row).to_have_attribute("data-status", "active", timeout=FINISH)
    canvas = row.locator("canvas.pieces-canvas")
    expect(canvas).to_be_visible()
    # The picture changes as pieces arrive (bounded: a piece of 1 MiB at 256 KiB/s takes 4 s).
    first = page.canvas(row)
    deadline = time.monotonic() + 60
    while page.canvas(row) == first:
        assert time.monotonic() < deadline, "the pieces picture did not change in 60 s"
        page.tab.wait_for_timeout(250)
    expect(row.locator(".download-speed")).not_to_have_text("")
    # And the pieces done show in it (from getPieces, or from tellStatus's bitfield on aria2c).
    some_done = re.compile(r"^[1-9][0-9]* of 32 pieces$")
    expect(row.locator(".pieces-legend li").first).to_have_text(some_done, timeout=FINISH)
    expect(canvas).to_have_attribute("aria-label", re.compile(r"^Pieces: [1-9][0-9]* of 32 pieces done"))
    page.tab.screenshot(path=str(shots / f"{page.server['kind']}-active.png"), full_page=True)
    row.locator("canvas.pieces-canvas").screenshot(path=str(shots / f"{page.server['kind']}-pieces.png"))

    # By keyboard: the button keeps the focus as its row moves to the queue and back.
    toggle = row.locator("[data-action='toggle']")
    toggle.focus()
    page.tab.keyboard.press("Enter")
    expect(row).to_have_attribute("data-status", "paused", timeout=FINISH)
    gid = row.get_attribute("data-gid")
    expect(page.tab.locator(f"#waiting-list li[data-gid='{gid}']")).to_have_count(1)
    expect(toggle).to_have_text("Resume")
    expect(toggle).to_have_accessible_name(f"Resume {name}")
    expect(toggle).to_be_focused()
    page.tab.keyboard.press("Space")
    expect(row).to_have_attribute("data-status", "active", timeout=FINISH)
    expect(toggle).to_be_focused()

    row.get_by_role("button", name=f"Remove {name}").click()
    expect(row).to_have_attribute("data-status", "removed", timeout=FINISH)
    page.tab.click("#purge")
    expect(row).to_have_count(0)


def test_the_play_button_plays_an_audio_download_while_it_runs(page, files, shots):
    if page.server["kind"] != "slipstream":
        pytest.skip("aria2c serves no download to players")
    page.signed_in()
    name = files.prefix + "tone.mp3"
    data = page_fixtures.tone_mp3(1800)
    path = files.folder / name
    path.write_bytes(data)
    files.made.append(path)
    # Connections of 16 KiB/s (the daemon opens 8): over a minute for the whole file, which plays
    # at 16 KiB/s.
    page.add(files.slow_url(name, rate="16k"))
    row = page.row(name)
    expect(row).to_have_attribute("data-status", "active", timeout=FINISH)
    row.get_by_role("button", name=f"Play {name}").click()
    audio = row.locator("audio.download-audio")
    expect(audio).to_be_visible()
    # It has data to play and its time moves, while the download runs.
    page.tab.wait_for_function("a => a.readyState >= 2 && a.currentTime > 1", arg=audio.element_handle(), timeout=FINISH)
    assert row.get_attribute("data-status") == "active"
    # A seek to bytes not downloaded yet: the download's window moves there, and it plays on.
    audio.evaluate("a => { a.currentTime = 1200; }")
    page.tab.wait_for_function("a => !a.seeking && a.readyState >= 2 && a.currentTime > 1201", arg=audio.element_handle(),
                               timeout=FINISH)
    assert row.get_attribute("data-status") == "active"
    done = int(page.server.rpc("aria2.tellStatus", row.get_attribute("data-gid"), ["completedLength"])["completedLength"])
    assert done < len(data) * 1200 / 1800, "the seek was played from bytes downloaded in order"
    row.screenshot(path=str(shots / "slipstream-playing.png"))
    row.get_by_role("button", name=f"Close player {name}").click()
    expect(audio).to_be_hidden()
    row.get_by_role("button", name=f"Remove {name}").click()
    expect(row).to_have_attribute("data-status", "removed", timeout=FINISH)


def test_pause_all_move_and_resume_all(page, files):
    page.signed_in()
    first, _ = files.put("first.bin", 32 << 20)
    second, _ = files.put("second.bin", 32 << 20)
    page.add(files.slow_url(first, "64k"))
    page.add(files.slow_url(second, "64k"))
    expect(page.row(first)).to_have_attribute("data-status", re.compile("active|waiting"), timeout=FINISH)
    expect(page.row(second)).to_have_attribute("data-status", re.compile("active|waiting"), timeout=FINISH)
    page.tab.click("#pause-all")
    waiting = page.tab.locator("#waiting-list li.download")
    expect(page.row(first)).to_have_attribute("data-status", "paused", timeout=FINISH)
    expect(page.row(second)).to_have_attribute("data-status", "paused", timeout=FINISH)
    names = waiting.locator(".download-name")
    expect(names).to_have_count(2)
    # Pausing puts them at the queue's front in an order of the server's: take it as it is.
    top, bottom = names.all_inner_texts()
    assert {top, bottom} == {first, second}
    expect(page.row(top).get_by_role("button", name=f"Move up {top}")).to_be_disabled()
    page.row(top).get_by_role("button", name=f"Move down {top}").click()
    expect(names).to_have_text([bottom, top])
    page.row(top).get_by_role("button", name=f"Move up {top}").click()
    expect(names).to_have_text([top, bottom])
    page.tab.click("#resume-all")
    expect(page.row(first)).to_have_attribute("data-status", re.compile("active|waiting"), timeout=FINISH)
    expect(page.row(second)).to_have_attribute("data-status", re.compile("active|waiting"), timeout=FINISH)
    for name in (first, second):
        page.row(name).get_by_role("button", name=f"Remove {name}").click()
        expect(page.row(name)).to_have_attribute("data-status", "removed", timeout=FINISH)
    page.tab.click("#purge")
    expect(page.tab.locator("#stopped-list li.download")).to_have_count(0)


def test_the_global_speed_limit(page):
    page.signed_in()
    page.tab.fill("#speed-limit", "1M")
    page.tab.press("#speed-limit", "Enter")
    expect(page.tab.locator("#speed-limit-now")).to_have_text("Limited to 1.0 MiB/s")
    page.tab.fill("#speed-limit", "0")
    page.tab.click("#limit-submit")
    expect(page.tab.locator("#speed-limit-now")).to_have_text("No limit")


def test_a_phone_width_lays_out_without_sideways_scrolling(browser, server, files, shots):
    # In the dark scheme, where the desktop tests have the light one.
    phone = Page(browser, server, viewport={"width": 375, "height": 740}, device_scale_factor=2, is_mobile=True,
                 has_touch=True, color_scheme="dark")
    try:
        phone.signed_in()
        done, _ = files.put("a-file-with-a-rather-long-name-for-a-phone-screen.iso", 1 << 20)
        slow, _ = files.put("slow-on-a-phone.bin", 32 << 20)
        phone.add(files.url(done))
        phone.add(files.slow_url(slow))
        phone.add(files.url(files.prefix + "not-there.bin"))
        expect(phone.row(done)).to_have_attribute("data-status", "complete", timeout=FINISH)
        expect(phone.row(slow)).to_have_attribute("data-status", "active", timeout=FINISH)
        expect(phone.row(files.prefix + "not-there.bin")).to_have_attribute("data-status", "error", timeout=FINISH)
        phone.tab.click("#add-more summary")
        expect(phone.row(slow).locator("canvas.pieces-canvas")).to_be_visible()
        width = phone.tab.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, f"the page is {width} px wide at 375"
        # Every button can be reached without scrolling sideways.
        for box in phone.tab.locator("button:visible").evaluate_all(
                "buttons => buttons.map(b => b.getBoundingClientRect().right)"):
            assert box <= 375
        phone.tab.screenshot(path=str(shots / f"{server['kind']}-phone.png"), full_page=True)
        phone.row(slow).get_by_role("button", name=f"Remove {slow}").click()
        expect(phone.row(slow)).to_have_attribute("data-status", "removed", timeout=FINISH)
    finally:
        phone.close()


def test_the_page_reconnects_when_the_server_comes_back(browser, kind, files, tmp_path):
    own = Server(kind, tmp_path)
    tab = Page(browser, own, viewport={"width": 1100, "height": 900})
    try:
        tab.signed_in()
        connection = tab.tab.locator("#connection")
        expect(connection).to_have_attribute("data-state", "open")
        # Every state the connection's readout goes through, from now on.
        tab.tab.evaluate("""() => {
            const element = document.getElementById('connection');
            window.connectionStates = [];
            new MutationObserver(() => window.connectionStates.push(element.dataset.state))
                .observe(element, { attributes: true, attributeFilter: ['data-state'] });
        }""")
        own.restart()
        # Bounded: the page tries again at most 5 s apart.
        tab.tab.wait_for_function(
            "() => window.connectionStates.includes('closed')"
            " && document.getElementById('connection').dataset.state === 'open'",
            timeout=30_000)
        expect(tab.tab.locator("#secret-panel")).to_be_hidden()
        name, _ = files.put("after-restart.bin", 1 << 20)
        tab.add(files.url(name))
        expect(tab.row(name)).to_have_attribute("data-status", "complete", timeout=FINISH)
    finally:
        try:
            tab.close()
        finally:
            own.close()


def test_without_a_secret_the_page_does_not_ask_for_one(browser, kind, tmp_path):
    own = Server(kind, tmp_path, secret="")
    tab = Page(browser, own, viewport={"width": 1100, "height": 900})
    try:
        tab.open()
        expect(tab.tab.locator("#app")).to_be_visible()
        expect(tab.tab.locator("#secret-panel")).to_be_hidden()
        expect(tab.tab.locator("#connection")).to_have_attribute("data-state", "open")
    finally:
        try:
            tab.close()
        finally:
            own.close()
