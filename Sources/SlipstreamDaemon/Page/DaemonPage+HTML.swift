extension DaemonPage {
    /// The page at `/`: the frame the script fills in (no inline script or style: the server's
    /// Content-Security-Policy allows only files of its own).
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>Slipstream</title>
        <link rel="stylesheet" href="app.css">
        <script src="app.js" defer></script>
        </head>
        <body>
        <header class="top">
          <div class="top-inner">
            <h1 class="brand">Slipstream</h1>
            <p id="global-stat" class="global-stat" hidden>
              <span class="global-speed"><span class="visually-hidden">Download speed: </span><span id="global-speed">0 B/s</span></span>
              <span id="global-counts" class="global-counts"></span>
            </p>
            <p id="connection" class="connection" data-state="connecting" role="status">Connecting…</p>
          </div>
        </header>
        <main class="page">
          <noscript><p class="panel">This page needs JavaScript.</p></noscript>

          <section id="secret-panel" class="panel secret-panel" aria-labelledby="secret-title" hidden>
            <h2 id="secret-title">Sign in</h2>
            <form id="secret-form" class="secret-form">
              <label for="secret">The daemon's secret (<code>--rpc-secret</code>)</label>
              <div class="field-row">
                <input id="secret" name="secret" type="password" autocomplete="current-password" required>
                <button id="secret-submit" type="submit" class="primary">Connect</button>
              </div>
              <p id="secret-error" class="field-error" role="alert" hidden></p>
              <p class="hint">Kept in this tab only, until it is closed.</p>
            </form>
          </section>

          <div id="app" class="app" hidden>
            <section class="panel" aria-labelledby="add-title">
              <h2 id="add-title">Add a download</h2>
              <form id="add-form" class="add-form">
                <label for="add-uris">Address</label>
                <textarea id="add-uris" name="uris" rows="2" required spellcheck="false" autocomplete="off"
                  aria-describedby="add-uris-hint" placeholder="https://example.com/file.iso"></textarea>
                <p id="add-uris-hint" class="hint">One file. More lines are mirrors of the same file.</p>
                <details id="add-more" class="add-more">
                  <summary>Options</summary>
                  <div class="add-options">
                    <div class="field">
                      <label for="add-out">File name</label>
                      <input id="add-out" name="out" autocomplete="off" spellcheck="false">
                    </div>
                    <div class="field">
                      <label for="add-dir">Folder</label>
                      <input id="add-dir" name="dir" autocomplete="off" spellcheck="false" aria-describedby="add-dir-hint">
                      <p id="add-dir-hint" class="hint">Inside the download folder.</p>
                    </div>
                    <div class="field">
                      <label for="add-checksum">Checksum</label>
                      <input id="add-checksum" name="checksum" autocomplete="off" spellcheck="false"
                        pattern="[A-Za-z0-9\-]+=[0-9A-Fa-f]+" placeholder="sha-256=…" aria-describedby="add-checksum-hint">
                      <p id="add-checksum-hint" class="hint">Type, equals sign, hex digest.</p>
                    </div>
                  </div>
                </details>
                <div class="form-actions">
                  <button id="add-submit" type="submit" class="primary">Add</button>
                </div>
              </form>
            </section>

            <section class="panel controls" aria-labelledby="controls-title">
              <h2 id="controls-title" class="visually-hidden">Queue</h2>
              <div class="control-buttons">
                <button id="pause-all" type="button">Pause all</button>
                <button id="resume-all" type="button">Resume all</button>
                <button id="purge" type="button">Clear finished</button>
              </div>
              <form id="limit-form" class="limit-form">
                <div class="label-row">
                  <label for="speed-limit">Speed limit</label>
                  <span id="speed-limit-now" class="hint">No limit</span>
                </div>
                <div class="field-row">
                  <input id="speed-limit" name="limit" inputmode="text" autocomplete="off" spellcheck="false"
                    pattern="\s*[0-9]+[KkMm]?\s*" placeholder="e.g. 1M or 500K; 0: none" aria-describedby="speed-limit-now">
                  <button id="limit-submit" type="submit">Set</button>
                </div>
              </form>
            </section>

            <section class="group" aria-labelledby="active-title">
              <h2 id="active-title" class="group-title">Downloading <span id="active-count" class="count">0</span></h2>
              <ul id="active-list" class="downloads"></ul>
              <p id="active-empty" class="empty">Nothing is downloading.</p>
            </section>
            <section class="group" aria-labelledby="waiting-title">
              <h2 id="waiting-title" class="group-title">Queued and paused <span id="waiting-count" class="count">0</span></h2>
              <ul id="waiting-list" class="downloads"></ul>
              <p id="waiting-empty" class="empty">The queue is empty.</p>
            </section>
            <section class="group" aria-labelledby="stopped-title">
              <h2 id="stopped-title" class="group-title">Finished <span id="stopped-count" class="count">0</span></h2>
              <ul id="stopped-list" class="downloads"></ul>
              <p id="stopped-empty" class="empty">Nothing has finished yet.</p>
            </section>
          </div>
        </main>
        <p id="notice" class="notice" role="status" aria-live="polite" hidden></p>

        <template id="download-template">
          <li class="download">
            <div class="download-head">
              <h3 class="download-name"></h3>
              <span class="status"></span>
            </div>
            <div class="download-progress">
              <progress class="download-bar" max="1" value="0"></progress>
              <span class="download-percent"></span>
            </div>
            <p class="download-facts">
              <span class="download-size"></span>
              <span class="download-speed"></span>
              <span class="download-eta"></span>
              <span class="download-connections"></span>
            </p>
            <p class="download-error" hidden></p>
            <div class="download-pieces" hidden>
              <canvas class="pieces-canvas" role="img" width="300" height="18"></canvas>
              <ul class="pieces-legend"></ul>
            </div>
            <audio class="download-audio" controls preload="none" hidden></audio>
            <div class="download-actions">
              <button type="button" data-action="play" hidden>Play</button>
              <button type="button" data-action="toggle">Pause</button>
              <button type="button" data-action="up">Move up</button>
              <button type="button" data-action="down">Move down</button>
              <button type="button" data-action="remove" class="danger">Remove</button>
            </div>
          </li>
        </template>
        </body>
        </html>
        """#
}
