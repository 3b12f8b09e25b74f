extension DaemonPage {
    /// The page's style sheet, `/app.css`: one column, the same on a phone as on a desktop, light
    /// and dark.
    static let styleSheet = #"""
        /* Slipstream's page: one column that reads the same on a phone and on a desktop. */
        :root {
          --bg: #f4f5f7;
          --panel: #ffffff;
          --text: #1c2330;
          --muted: #5d6778;
          --line: #dde1e8;
          --accent: #2563eb;
          --accent-text: #ffffff;
          --done: #16a34a;
          --track: #e3e7ee;
          --danger: #c0262d;
          --warn: #b45309;
          --focus: #f59e0b;
          --on-color: #ffffff;
          --c0: #2563eb;
          --c1: #d97706;
          --c2: #9333ea;
          --c3: #db2777;
          --c4: #0d9488;
          --c5: #dc2626;
          --c6: #65a30d;
          --c7: #4f46e5;
          --radius: 10px;
          color-scheme: light dark;
        }

        @media (prefers-color-scheme: dark) {
          :root {
            --bg: #11151c;
            --panel: #1a2029;
            --text: #e6e9ef;
            --muted: #9aa4b5;
            --line: #2c3440;
            --accent: #4f8cff;
            --accent-text: #0b1020;
            --done: #22c55e;
            --track: #2a323e;
            --danger: #ff6b6b;
            --warn: #fbbf24;
            --on-color: #0b1020;
            --c0: #60a5fa;
            --c1: #fbbf24;
            --c2: #c084fc;
            --c3: #f472b6;
            --c4: #2dd4bf;
            --c5: #f87171;
            --c6: #a3e635;
            --c7: #818cf8;
          }
        }

        *, *::before, *::after { box-sizing: border-box; }

        html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }

        body {
          margin: 0;
          background: var(--bg);
          color: var(--text);
          font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif;
        }

        h1, h2, h3, p { margin: 0; }

        code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.92em; }

        .visually-hidden {
          position: absolute;
          width: 1px;
          height: 1px;
          margin: -1px;
          padding: 0;
          overflow: hidden;
          clip: rect(0 0 0 0);
          white-space: nowrap;
          border: 0;
        }

        [hidden] { display: none !important; }

        /* The bar at the top: name, global speed, connection state. */
        .top {
          position: sticky;
          top: 0;
          z-index: 2;
          background: var(--panel);
          border-bottom: 1px solid var(--line);
        }

        .top-inner {
          max-width: 960px;
          margin: 0 auto;
          padding: 10px 16px;
          display: flex;
          flex-wrap: wrap;
          align-items: center;
          gap: 4px 16px;
        }

        .brand { font-size: 1.15rem; font-weight: 700; letter-spacing: 0.01em; }

        .global-stat {
          display: flex;
          align-items: baseline;
          gap: 10px;
          flex: 1 1 auto;
          min-width: 0;
        }

        .global-speed { font-weight: 600; font-variant-numeric: tabular-nums; }

        .global-speed::before { content: "↓ "; color: var(--accent); }

        .global-counts { color: var(--muted); font-size: 0.9rem; }

        .connection {
          font-size: 0.85rem;
          color: var(--muted);
          display: flex;
          align-items: center;
          gap: 6px;
        }

        .connection::before {
          content: "";
          width: 8px;
          height: 8px;
          border-radius: 50%;
          background: var(--warn);
        }

        .connection[data-state="open"]::before { background: var(--done); }

        .connection[data-state="closed"]::before { background: var(--danger); }

        /* The page's column. */
        .page {
          max-width: 960px;
          margin: 0 auto;
          padding: 16px;
          display: grid;
          gap: 16px;
        }

        .app { display: grid; gap: 16px; }

        .panel {
          background: var(--panel);
          border: 1px solid var(--line);
          border-radius: var(--radius);
          padding: 14px 16px;
        }

        .panel h2 { font-size: 1rem; margin-bottom: 10px; }

        .secret-panel { max-width: 460px; width: 100%; justify-self: center; margin-top: 8vh; }

        label { display: block; font-weight: 600; font-size: 0.9rem; margin-bottom: 4px; }

        input, textarea, button { font: inherit; color: inherit; }

        input, textarea {
          width: 100%;
          min-width: 0;
          padding: 8px 10px;
          border: 1px solid var(--line);
          border-radius: 8px;
          background: var(--bg);
        }

        textarea { resize: vertical; min-height: 2.8em; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.9rem; }

        input:user-invalid, textarea:user-invalid { border-color: var(--danger); }

        button {
          min-height: 38px;
          padding: 6px 14px;
          border: 1px solid var(--line);
          border-radius: 8px;
          background: var(--panel);
          cursor: pointer;
          white-space: nowrap;
        }

        button:hover { border-color: var(--accent); }

        button:disabled { opacity: 0.45; cursor: default; border-color: var(--line); }

        button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-text); font-weight: 600; }

        button.danger { color: var(--danger); }

        :focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }

        .hint { color: var(--muted); font-size: 0.85rem; margin-top: 4px; }

        .field-error { color: var(--danger); font-size: 0.9rem; margin-top: 6px; }

        .field-row { display: flex; gap: 8px; }

        .field-row input { flex: 1 1 auto; }

        .add-more { margin-top: 10px; }

        .add-more summary { cursor: pointer; color: var(--accent); font-weight: 600; width: max-content; }

        .add-options {
          display: grid;
          grid-template-columns: repeat(3, minmax(0, 1fr));
          gap: 10px 12px;
          margin-top: 10px;
        }

        .form-actions { margin-top: 12px; display: flex; justify-content: flex-end; }

        .controls {
          display: flex;
          flex-wrap: wrap;
          align-items: flex-end;
          justify-content: space-between;
          gap: 12px 24px;
        }

        .control-buttons { display: flex; flex-wrap: wrap; gap: 8px; }

        .limit-form { min-width: 0; flex: 0 1 320px; }

        .label-row { display: flex; align-items: baseline; justify-content: space-between; gap: 8px; }

        .label-row .hint { margin: 0; }

        /* The three lists of downloads. */
        .group-title {
          font-size: 0.95rem;
          color: var(--muted);
          text-transform: uppercase;
          letter-spacing: 0.06em;
          margin: 4px 2px 8px;
          display: flex;
          align-items: center;
          gap: 8px;
        }

        .count {
          font-size: 0.8rem;
          min-width: 1.6em;
          padding: 0 6px;
          border-radius: 999px;
          background: var(--track);
          color: var(--text);
          text-align: center;
          letter-spacing: 0;
        }

        .downloads { list-style: none; margin: 0; padding: 0; display: grid; gap: 10px; }

        .empty { color: var(--muted); font-size: 0.9rem; padding: 2px 2px 4px; }

        .downloads:not(:empty) + .empty { display: none; }

        .download {
          background: var(--panel);
          border: 1px solid var(--line);
          border-left: 4px solid var(--line);
          border-radius: var(--radius);
          padding: 12px 14px;
          display: grid;
          gap: 8px;
          min-width: 0;
        }

        .download[data-status="active"] { border-left-color: var(--accent); }

        .download[data-status="complete"] { border-left-color: var(--done); }

        .download[data-status="error"] { border-left-color: var(--danger); }

        .download[data-status="paused"] { border-left-color: var(--warn); }

        .download-head { display: flex; align-items: flex-start; justify-content: space-between; gap: 10px; min-width: 0; }

        .download-name { font-size: 1rem; font-weight: 600; overflow-wrap: anywhere; min-width: 0; }

        .status {
          flex: none;
          font-size: 0.75rem;
          font-weight: 700;
          text-transform: uppercase;
          letter-spacing: 0.05em;
          padding: 2px 8px;
          border-radius: 999px;
          background: var(--track);
          color: var(--muted);
        }

        .download[data-status="active"] .status { background: var(--accent); color: var(--accent-text); }

        .download[data-status="complete"] .status { background: var(--done); color: var(--on-color); }

        .download[data-status="error"] .status { background: var(--danger); color: var(--on-color); }

        .download[data-status="paused"] .status { background: var(--warn); color: var(--on-color); }

        .download-progress { display: flex; align-items: center; gap: 10px; }

        .download-bar {
          flex: 1 1 auto;
          min-width: 0;
          height: 8px;
          appearance: none;
          border: none;
          border-radius: 999px;
          background: var(--track);
          overflow: hidden;
        }

        .download-bar::-webkit-progress-bar { background: var(--track); border-radius: 999px; }

        .download-bar::-webkit-progress-value { background: var(--accent); border-radius: 999px; transition: width 0.4s ease; }

        .download-bar::-moz-progress-bar { background: var(--accent); border-radius: 999px; }

        .download[data-status="complete"] .download-bar::-webkit-progress-value { background: var(--done); }

        .download[data-status="complete"] .download-bar::-moz-progress-bar { background: var(--done); }

        .download[data-status="error"] .download-bar::-webkit-progress-value { background: var(--danger); }

        .download[data-status="error"] .download-bar::-moz-progress-bar { background: var(--danger); }

        .download-percent {
          font-size: 0.85rem;
          font-variant-numeric: tabular-nums;
          color: var(--muted);
          min-width: 3.2em;
          text-align: right;
        }

        /* Facts separated by dots; the dot that starts a line falls in the margin, clipped. */
        .download-facts {
          display: flex;
          flex-wrap: wrap;
          margin-left: -1.2em;
          clip-path: inset(0 0 0 1.2em);
          color: var(--muted);
          font-size: 0.88rem;
          font-variant-numeric: tabular-nums;
        }

        .download-facts > span { white-space: nowrap; }

        .download-facts > span:empty { display: none; }

        .download-facts > span::before { content: "·" / ""; display: inline-block; width: 1.2em; text-align: center; }

        .download-audio { display: block; width: 100%; margin: 8px 0; }

        .download-audio[hidden] { display: none; }

        .download-error {
          color: var(--danger);
          font-size: 0.9rem;
          overflow-wrap: anywhere;
        }

        .download-pieces { display: grid; gap: 6px; }

        .pieces-canvas {
          display: block;
          width: 100%;
          height: 18px;
          border-radius: 4px;
          background: var(--track);
        }

        .pieces-legend {
          list-style: none;
          margin: 0;
          padding: 0;
          display: flex;
          flex-wrap: wrap;
          gap: 2px 14px;
          font-size: 0.8rem;
          color: var(--muted);
          font-variant-numeric: tabular-nums;
        }

        .pieces-legend li { display: flex; align-items: center; gap: 5px; min-width: 0; overflow-wrap: anywhere; }

        .swatches { display: inline-flex; flex: none; gap: 2px; }

        .swatch { flex: none; width: 10px; height: 10px; border-radius: 2px; background: var(--track); }

        .swatch.done { background: var(--done); }

        .swatch.c0 { background: var(--c0); }
        .swatch.c1 { background: var(--c1); }
        .swatch.c2 { background: var(--c2); }
        .swatch.c3 { background: var(--c3); }
        .swatch.c4 { background: var(--c4); }
        .swatch.c5 { background: var(--c5); }
        .swatch.c6 { background: var(--c6); }
        .swatch.c7 { background: var(--c7); }

        .download-actions { display: flex; flex-wrap: wrap; gap: 8px; }

        .download-actions button { min-height: 34px; padding: 4px 12px; font-size: 0.9rem; }

        /* Messages after an action: a line at the bottom of the screen. */
        .notice {
          position: fixed;
          left: 50%;
          bottom: 16px;
          transform: translateX(-50%);
          max-width: min(560px, calc(100vw - 32px));
          padding: 10px 16px;
          border-radius: 8px;
          background: var(--text);
          color: var(--bg);
          box-shadow: 0 6px 24px rgb(0 0 0 / 0.25);
          font-size: 0.92rem;
          overflow-wrap: anywhere;
          z-index: 3;
        }

        .notice[data-kind="error"] { background: var(--danger); color: var(--on-color); }

        @media (max-width: 640px) {
          body { font-size: 15px; }
          .top-inner { padding: 8px 12px; gap: 2px 12px; }
          .global-stat { order: 3; flex-basis: 100%; }
          .connection { margin-left: auto; }
          .page { padding: 12px; gap: 12px; }
          .panel { padding: 12px; }
          .add-options { grid-template-columns: minmax(0, 1fr); }
          .controls { flex-direction: column; align-items: stretch; }
          .control-buttons { align-self: stretch; }
          .control-buttons button { flex: 1 1 auto; }
          .limit-form { flex-basis: auto; }
          .download { padding: 10px 12px; }
          .download-actions button { flex: 1 1 auto; }
        }

        @media (prefers-reduced-motion: reduce) {
          .download-bar::-webkit-progress-value { transition: none; }
        }
        """#
}
