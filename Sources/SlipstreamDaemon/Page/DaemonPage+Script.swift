extension DaemonPage {
    /// The page's script, `/app.js`: aria2's JSON-RPC over a WebSocket to the same origin, the
    /// secret asked once, the queue polled once a second, the pieces drawn on a canvas.
    static let script = #"""
        // Slipstream's page: aria2's JSON-RPC over a WebSocket to the server that served it.
        // It asks for the secret once, polls the queue once a second in one system.multicall, refreshes
        // at once on aria2's notifications, and reconnects when the socket drops.
        'use strict';

        const KEYS = [
          'gid', 'status', 'totalLength', 'completedLength', 'downloadSpeed', 'connections', 'numPieces',
          'pieceLength', 'bitfield', 'errorCode', 'errorMessage', 'dir', 'files',
        ];
        const SECRET_KEY = 'slipstream-secret';
        const PALETTE_SIZE = 8;
        const CALL_TIMEOUT_MS = 20000;

        const $ = (id) => document.getElementById(id);

        const state = {
          socket: null,
          retries: 0,
          nextId: 1,
          pending: new Map(),
          // The secret: null until one is known; `typed` when the person gave it (not the empty try).
          secret: sessionStorage.getItem(SECRET_KEY),
          needSecret: false,
          polling: false,
          pollAgain: false,
          shown: false,
          rows: new Map(),
          activeGids: [],
          // slipstream.getPieces: true until the server says it has no such method (aria2c).
          piecesMethod: true,
          // slipstream.getStreamPath: true until the server says it has no such method (aria2c).
          streamMethod: true,
          noticeTimer: 0,
          pollError: '',
          ticks: 0,
        };

        class RpcError extends Error {
          constructor(message, code) {
            super(message);
            this.code = code;
          }
        }

        // ---- The connection ----

        // Beside the page: /jsonrpc when it is served at /, and under a prefix behind a proxy.
        function rpcURL() {
          const url = new URL('jsonrpc', location.href);
          url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
          url.search = '';
          url.hash = '';
          return url.href;
        }

        function connect() {
          setConnection('connecting', 'Connecting…');
          let socket;
          try {
            socket = new WebSocket(rpcURL());
          } catch (error) {
            reconnectLater();
            return;
          }
          state.socket = socket;
          socket.addEventListener('open', () => {
            state.retries = 0;
            setConnection('open', 'Connected');
            readGlobalOptions();
            poll();
          });
          socket.addEventListener('message', (event) => receive(event.data));
          socket.addEventListener('close', () => {
            if (state.socket !== socket) return;
            state.socket = null;
            for (const [, call] of state.pending) {
              clearTimeout(call.timer);
              call.reject(new RpcError('The connection was lost'));
            }
            state.pending.clear();
            setConnection('closed', 'Reconnecting…');
            reconnectLater();
          });
        }

        function reconnectLater() {
          const delay = Math.min(5000, 250 * 2 ** state.retries);
          state.retries += 1;
          setTimeout(connect, delay);
        }

        function setConnection(kind, text) {
          const element = $('connection');
          element.dataset.state = kind;
          element.textContent = text;
        }

        function receive(text) {
          let message;
          try {
            message = JSON.parse(text);
          } catch (error) {
            return;
          }
          for (const one of Array.isArray(message) ? message : [message]) {
            if (one === null || typeof one !== 'object') continue;
            if (typeof one.method === 'string' && one.method.startsWith('aria2.onDownload')) {
              poll();
              continue;
            }
            const call = state.pending.get(String(one.id));
            if (!call) continue;
            state.pending.delete(String(one.id));
            clearTimeout(call.timer);
            if (one.error) {
              call.reject(new RpcError(String(one.error.message ?? 'Error'), one.error.code));
            } else {
              call.resolve(one.result);
            }
          }
        }

        // Sends one call as it is (no token added).
        function send(method, params) {
          return new Promise((resolve, reject) => {
            const socket = state.socket;
            if (!socket || socket.readyState !== WebSocket.OPEN) {
              reject(new RpcError('Not connected'));
              return;
            }
            const id = String(state.nextId++);
            const timer = setTimeout(() => {
              state.pending.delete(id);
              reject(new RpcError('No answer from the server'));
            }, CALL_TIMEOUT_MS);
            state.pending.set(id, { resolve, reject, timer });
            socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
          });
        }

        function token() {
          return `token:${state.secret ?? ''}`;
        }

        // One of aria2's methods, with the secret first.
        async function call(method, ...params) {
          try {
            return await send(method, [token(), ...params]);
          } catch (error) {
            if (isUnauthorized(error)) askSecret(true);
            throw error;
          }
        }

        // Several calls in one system.multicall: each answer is a value or an RpcError.
        async function multicall(calls) {
          const methods = calls.map(([methodName, ...params]) => ({ methodName, params: [token(), ...params] }));
          const results = await send('system.multicall', [methods]);
          if (!Array.isArray(results)) throw new RpcError('A malformed answer');
          return results.map((one) =>
            Array.isArray(one) ? one[0] : new RpcError(String(one?.message ?? 'Error'), one?.code));
        }

        function isUnauthorized(error) {
          return error instanceof RpcError && /unauthori[sz]ed/i.test(error.message);
        }

        function isNoSuchMethod(error) {
          return error instanceof RpcError && (error.code === -32601 || /no such method|method not found/i.test(error.message));
        }

        // ---- The secret ----

        function askSecret(rejected) {
          if (state.needSecret) return;
          const had = state.secret !== null;
          state.needSecret = true;
          state.secret = null;
          sessionStorage.removeItem(SECRET_KEY);
          const error = $('secret-error');
          error.hidden = !(rejected && had);
          error.textContent = 'That secret was not accepted. Try again.';
          $('secret-panel').hidden = false;
          $('app').hidden = true;
          $('global-stat').hidden = true;
          state.shown = false;
          const input = $('secret');
          input.value = '';
          input.focus();
        }

        $('secret-form').addEventListener('submit', (event) => {
          event.preventDefault();
          const secret = $('secret').value;
          if (!secret) return;
          state.secret = secret;
          sessionStorage.setItem(SECRET_KEY, secret);
          state.needSecret = false;
          $('secret-panel').hidden = true;
          readGlobalOptions();
          poll();
        });

        function showApp() {
          if (state.shown) return;
          state.shown = true;
          $('secret-panel').hidden = true;
          $('app').hidden = false;
          $('global-stat').hidden = false;
        }

        // ---- Polling ----

        async function poll() {
          if (state.needSecret || !state.socket || state.socket.readyState !== WebSocket.OPEN) return;
          if (state.polling) {
            state.pollAgain = true;
            return;
          }
          state.polling = true;
          try {
            const piecesGids = state.piecesMethod ? state.activeGids : [];
            const results = await multicall([
              ['aria2.tellActive', KEYS],
              ['aria2.tellWaiting', 0, 1000, KEYS],
              ['aria2.tellStopped', -1, 1000, KEYS],
              ['aria2.getGlobalStat'],
              ...piecesGids.map((gid) => ['slipstream.getPieces', gid]),
            ]);
            const [active, waiting, stopped, stat] = results;
            for (const result of [active, waiting, stopped, stat]) {
              if (result instanceof RpcError) throw result;
            }
            const pieces = new Map();
            piecesGids.forEach((gid, index) => {
              const result = results[4 + index];
              if (result instanceof RpcError) {
                if (isNoSuchMethod(result)) state.piecesMethod = false;
              } else if (result && typeof result === 'object') {
                pieces.set(gid, result);
              }
            });
            state.activeGids = active.map((item) => item.gid);
            showApp();
            render({ active, waiting, stopped }, stat, pieces);
            state.pollError = '';
          } catch (error) {
            if (isUnauthorized(error)) {
              askSecret(true);
            } else if (error.message !== state.pollError && state.socket) {
              // Said once, not every second.
              state.pollError = error.message;
              notify(`The queue could not be read: ${error.message}`, 'error');
            }
          } finally {
            state.polling = false;
          }
          if (state.pollAgain) {
            state.pollAgain = false;
            poll();
          }
        }

        // Once a second; every fifth second while the tab is hidden (notifications still refresh it).
        setInterval(() => {
          state.ticks += 1;
          if (!document.hidden || state.ticks % 5 === 0) poll();
        }, 1000);
        document.addEventListener('visibilitychange', () => {
          if (!document.hidden) poll();
        });

        // ---- Formatting ----

        function number(value) {
          const parsed = Number(value);
          return Number.isFinite(parsed) ? parsed : 0;
        }

        function bytes(count) {
          const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
          let value = count;
          let unit = 0;
          while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit += 1;
          }
          const digits = unit === 0 || value >= 100 ? 0 : 1;
          return `${value.toFixed(digits)} ${units[unit]}`;
        }

        function duration(seconds) {
          const total = Math.max(0, Math.round(seconds));
          const hours = Math.floor(total / 3600);
          const minutes = Math.floor((total % 3600) / 60);
          const secs = total % 60;
          if (hours > 99) return 'a long time';
          if (hours > 0) return `${hours} h ${String(minutes).padStart(2, '0')} min`;
          if (minutes > 0) return `${minutes} min ${String(secs).padStart(2, '0')} s`;
          return `${secs} s`;
        }

        function nameOf(item) {
          const file = Array.isArray(item.files) ? item.files[0] : undefined;
          const path = file && typeof file.path === 'string' ? file.path : '';
          if (path) return path.split('/').pop() || path;
          const uri = file && Array.isArray(file.uris) && file.uris[0] ? file.uris[0].uri : '';
          if (uri) {
            try {
              const url = new URL(uri);
              const last = url.pathname.split('/').filter(Boolean).pop();
              return last ? decodeURIComponent(last) : url.host;
            } catch (error) {
              return uri;
            }
          }
          return item.gid;
        }

        function hostOf(uri) {
          try {
            return new URL(uri).host;
          } catch (error) {
            return String(uri ?? '');
          }
        }

        // Downloads the page plays while they run (slipstream.getStreamPath): audio, by name.
        const AUDIO_NAME = /\.(mp3|flac|ogg|oga|opus|m4a|aac|wav|weba|mka)$/i;

        const STATUS_TEXT = {
          active: 'Downloading',
          waiting: 'Queued',
          paused: 'Paused',
          complete: 'Complete',
          error: 'Error',
          removed: 'Removed',
        };

        // ---- Rendering ----

        function render(lists, stat, pieces) {
          const seen = new Set();
          for (const [key, items] of Object.entries(lists)) {
            const list = $(`${key}-list`);
            items.forEach((item, index) => {
              seen.add(item.gid);
              let row = state.rows.get(item.gid);
              if (!row) {
                row = createRow(item.gid);
                state.rows.set(item.gid, row);
              }
              updateRow(row, item, pieces.get(item.gid), { first: index === 0, last: index === items.length - 1 });
              const here = list.children[index];
              if (here !== row.element) {
                // Moving a row takes the focus from its buttons: give it back (keyboard use).
                const focused = row.element.contains(document.activeElement) ? document.activeElement : null;
                list.insertBefore(row.element, here ?? null);
                if (focused && document.activeElement !== focused) focused.focus({ preventScroll: true });
              }
            });
          }
          for (const [gid, row] of state.rows) {
            if (!seen.has(gid)) {
              row.element.remove();
              state.rows.delete(gid);
            }
          }
          for (const key of Object.keys(lists)) {
            const list = $(`${key}-list`);
            $(`${key}-empty`).hidden = list.children.length > 0;
          }
          // The lists show the first 1000 of each kind; the counts are all of them.
          const counts = { active: stat.numActive, waiting: stat.numWaiting, stopped: stat.numStopped };
          for (const [key, items] of Object.entries(lists)) {
            $(`${key}-count`).textContent = String(Math.max(items.length, number(counts[key])));
          }
          const speed = `${bytes(number(stat.downloadSpeed))}/s`;
          $('global-speed').textContent = speed;
          // The tab's title tells the speed while something downloads.
          document.title = number(stat.numActive) > 0 ? `↓ ${speed} · Slipstream` : 'Slipstream';
          const finished = number(stat.numStopped);
          $('global-counts').textContent = `${number(stat.numActive)} active · ${number(stat.numWaiting)} queued · ${finished} finished`;
        }

        function createRow(gid) {
          const element = $('download-template').content.firstElementChild.cloneNode(true);
          element.dataset.gid = gid;
          const part = (name) => element.querySelector(`.${name}`);
          const row = {
            element,
            name: part('download-name'),
            status: part('status'),
            bar: part('download-bar'),
            percent: part('download-percent'),
            size: part('download-size'),
            speed: part('download-speed'),
            eta: part('download-eta'),
            connections: part('download-connections'),
            error: part('download-error'),
            pieces: part('download-pieces'),
            canvas: part('pieces-canvas'),
            legend: part('pieces-legend'),
            audio: part('download-audio'),
            buttons: {
              play: element.querySelector('[data-action="play"]'),
              toggle: element.querySelector('[data-action="toggle"]'),
              up: element.querySelector('[data-action="up"]'),
              down: element.querySelector('[data-action="down"]'),
              remove: element.querySelector('[data-action="remove"]'),
            },
            item: null,
            pieceInfo: null,
          };
          row.name.id = `name-${gid}`;
          row.bar.setAttribute('aria-labelledby', row.name.id);
          return row;
        }

        function setText(element, text) {
          if (element.textContent !== text) element.textContent = text;
        }

        function updateRow(row, item, pieceInfo, place) {
          row.item = item;
          const status = String(item.status);
          const name = nameOf(item);
          const total = number(item.totalLength);
          const done = number(item.completedLength);
          const speed = number(item.downloadSpeed);
          row.element.dataset.status = status;
          setText(row.name, name);
          row.name.title = Array.isArray(item.files) && item.files[0] ? String(item.files[0].path || '') : '';
          setText(row.status, STATUS_TEXT[status] ?? status);

          const fraction = total > 0 ? Math.min(1, done / total) : status === 'complete' ? 1 : 0;
          row.bar.value = fraction;
          setText(row.percent, total > 0 || status === 'complete' ? `${Math.floor(fraction * 100)} %` : '');

          const live = status === 'active';
          setText(row.size, total > 0 ? (done < total ? `${bytes(done)} of ${bytes(total)}` : bytes(total)) : done > 0 ? bytes(done) : '');
          setText(row.speed, live ? `${bytes(speed)}/s` : '');
          setText(row.eta, live && speed > 0 && total > done ? `${duration((total - done) / speed)} left` : '');
          const connections = number(item.connections);
          setText(row.connections, live ? `${connections} ${connections === 1 ? 'connection' : 'connections'}` : '');

          const message = status === 'error' ? String(item.errorMessage || `Failed (error ${item.errorCode ?? '?'})`) : '';
          setText(row.error, message);
          row.error.hidden = message === '';

          // The pieces: for an active download, and for a paused one that has some.
          const bitfield = pieceInfo?.bitfield ?? item.bitfield;
          const showPieces = (live || (status === 'paused' && done > 0)) && total > 0 && typeof bitfield === 'string';
          row.pieces.hidden = !showPieces;
          row.pieceInfo = showPieces ? (pieceInfo ?? {
            pieceLength: item.pieceLength, numPieces: item.numPieces, bitfield: item.bitfield, connections: [],
          }) : null;
          if (showPieces) drawPieces(row);

          const { play, toggle, up, down, remove } = row.buttons;
          // An open player stays until closed; a new one opens on a running or complete file.
          const playable = state.streamMethod && AUDIO_NAME.test(name) && (live || status === 'complete');
          play.hidden = row.audio.hidden && !playable;
          setText(play, row.audio.hidden ? 'Play' : 'Close player');
          const queued = status === 'waiting' || status === 'paused';
          toggle.hidden = !(live || queued);
          setText(toggle, status === 'paused' ? 'Resume' : 'Pause');
          toggle.dataset.action = 'toggle';
          up.hidden = !queued;
          down.hidden = !queued;
          up.disabled = place.first;
          down.disabled = place.last;
          setText(remove, live || queued ? 'Remove' : 'Clear');
          for (const button of [play, toggle, up, down, remove]) {
            button.setAttribute('aria-label', `${button.textContent} ${name}`);
          }
        }

        function cssColor(name) {
          return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
        }

        function hasPiece(bitfield, index) {
          const nibble = parseInt(bitfield[index >> 2], 16);
          return !Number.isNaN(nibble) && (nibble & (8 >> (index & 3))) !== 0;
        }

        function drawPieces(row) {
          const info = row.pieceInfo;
          const canvas = row.canvas;
          const ratio = window.devicePixelRatio || 1;
          const width = Math.max(1, Math.round((canvas.clientWidth || 300) * ratio));
          const height = Math.max(1, Math.round((canvas.clientHeight || 18) * ratio));
          if (canvas.width !== width) canvas.width = width;
          if (canvas.height !== height) canvas.height = height;
          const context = canvas.getContext('2d');
          context.fillStyle = cssColor('--track');
          context.fillRect(0, 0, width, height);

          const total = number(info.totalLength ?? row.item.totalLength);
          const pieceLength = number(info.pieceLength);
          const count = number(info.numPieces);
          const bitfield = String(info.bitfield ?? '');
          const connections = Array.isArray(info.connections) ? info.connections : [];
          if (!(total > 0 && pieceLength > 0 && count > 0)) return;

          const scale = width / total;
          const band = connections.length > 0 ? Math.round(height * 0.6) : height;
          let doneCount = 0;
          context.fillStyle = cssColor('--done');
          let runStart = -1;
          for (let index = 0; index <= count; index += 1) {
            const has = index < count && hasPiece(bitfield, index);
            if (has) doneCount += 1;
            if (has && runStart < 0) runStart = index;
            if (!has && runStart >= 0) {
              const x0 = runStart * pieceLength * scale;
              const x1 = Math.min(total, index * pieceLength) * scale;
              context.fillRect(x0, 0, Math.max(1, x1 - x0), band);
              runStart = -1;
            }
          }

          // Each connection's range in flight, in its own colour; the legend, one line per server.
          const servers = new Map();
          connections.forEach((connection, index) => {
            const color = `c${index % PALETTE_SIZE}`;
            const start = number(connection.start);
            const end = Math.max(start, number(connection.end));
            context.fillStyle = cssColor(`--${color}`);
            context.fillRect(start * scale, band, Math.max(2, (end - start) * scale), height - band);
            const host = hostOf(connection.uri);
            const server = servers.get(host) ?? { colors: [], speed: 0 };
            server.colors.push(color);
            server.speed += number(connection.downloadSpeed);
            servers.set(host, server);
          });
          const legend = [...servers].map(([host, server]) => ({
            colors: server.colors,
            text: `${host} · ${server.colors.length === 1 ? '1 connection' : `${server.colors.length} connections`}`
              + ` · ${bytes(server.speed)}/s`,
          }));

          const summary = `${doneCount} of ${count} pieces`;
          canvas.setAttribute('aria-label',
            `Pieces: ${summary} done${connections.length ? `, ${connections.length} in flight` : ''}`);
          renderLegend(row.legend, [{ colors: ['done'], text: summary }, ...legend]);
        }

        function renderLegend(list, entries) {
          while (list.children.length > entries.length) list.lastElementChild.remove();
          entries.forEach((entry, index) => {
            let li = list.children[index];
            if (!li) {
              li = document.createElement('li');
              const swatches = document.createElement('span');
              swatches.className = 'swatches';
              const text = document.createElement('span');
              li.append(swatches, text);
              list.append(li);
            }
            const swatches = li.firstElementChild;
            while (swatches.children.length > entry.colors.length) swatches.lastElementChild.remove();
            entry.colors.forEach((color, at) => {
              const swatch = swatches.children[at] ?? swatches.appendChild(document.createElement('span'));
              swatch.className = `swatch ${color}`;
            });
            setText(li.lastElementChild, entry.text);
          });
        }

        window.addEventListener('resize', () => {
          for (const row of state.rows.values()) {
            if (row.pieceInfo) drawPieces(row);
          }
        });

        // ---- Actions ----

        function notify(text, kind = 'info') {
          const notice = $('notice');
          notice.textContent = text;
          notice.dataset.kind = kind;
          notice.hidden = false;
          clearTimeout(state.noticeTimer);
          state.noticeTimer = setTimeout(() => { notice.hidden = true; }, kind === 'error' ? 8000 : 3000);
        }

        async function act(method, ...params) {
          try {
            const result = await call(method, ...params);
            poll();
            return result;
          } catch (error) {
            if (!isUnauthorized(error)) notify(error.message, 'error');
            throw error;
          }
        }

        // Plays the download in its row's <audio> while it downloads: the daemon serves it with
        // ranges at a path of its own (seeking moves the download's window there).
        async function togglePlayer(row) {
          if (!row) return;
          const { audio } = row;
          if (!audio.hidden) {
            audio.pause();
            audio.removeAttribute('src');
            audio.load();
            audio.hidden = true;
            setText(row.buttons.play, 'Play');
            poll();
            return;
          }
          let path;
          try {
            path = await call('slipstream.getStreamPath', row.element.dataset.gid);
          } catch (error) {
            if (isNoSuchMethod(error)) {
              state.streamMethod = false;
              notify('This server cannot play its downloads.', 'error');
            } else if (!isUnauthorized(error)) {
              notify(error.message, 'error');
            }
            return;
          }
          // Beside the page, as the RPC (under a prefix behind a proxy too).
          audio.src = new URL(String(path).replace(/^\//, ''), location.href).href;
          audio.hidden = false;
          setText(row.buttons.play, 'Close player');
          poll();
          try {
            await audio.play();
          } catch (error) {
            notify(`It cannot be played: ${error.message}`, 'error');
          }
        }

        function quietly(promise) {
          promise.catch(() => {});
        }

        for (const key of ['active', 'waiting', 'stopped']) {
          $(`${key}-list`).addEventListener('click', (event) => {
            const button = event.target.closest('button[data-action]');
            const element = event.target.closest('li[data-gid]');
            if (!button || !element) return;
            const gid = element.dataset.gid;
            const status = element.dataset.status;
            const queued = status === 'active' || status === 'waiting' || status === 'paused';
            switch (button.dataset.action) {
            case 'play':
              quietly(togglePlayer(state.rows.get(gid)));
              break;
            case 'toggle':
              quietly(act(status === 'paused' ? 'aria2.unpause' : 'aria2.pause', gid));
              break;
            case 'up':
              quietly(act('aria2.changePosition', gid, -1, 'POS_CUR'));
              break;
            case 'down':
              quietly(act('aria2.changePosition', gid, 1, 'POS_CUR'));
              break;
            case 'remove':
              quietly(act(queued ? 'aria2.remove' : 'aria2.removeDownloadResult', gid));
              break;
            default:
              break;
            }
          });
        }

        $('pause-all').addEventListener('click', () => quietly(act('aria2.pauseAll')));
        $('resume-all').addEventListener('click', () => quietly(act('aria2.unpauseAll')));
        $('purge').addEventListener('click', () => quietly(act('aria2.purgeDownloadResult')));

        $('add-form').addEventListener('submit', async (event) => {
          event.preventDefault();
          const uris = $('add-uris').value.split('\n').map((line) => line.trim()).filter(Boolean);
          if (uris.length === 0) return;
          const options = {};
          for (const [id, key] of [['add-out', 'out'], ['add-dir', 'dir'], ['add-checksum', 'checksum']]) {
            const value = $(id).value.trim();
            if (value) options[key] = value;
          }
          const submit = $('add-submit');
          submit.disabled = true;
          try {
            await act('aria2.addUri', uris, options);
            event.target.reset();
            notify(uris.length > 1 ? `Added, with ${uris.length - 1} more mirrors` : 'Added');
          } catch (error) {
            // act() showed it.
          } finally {
            submit.disabled = false;
          }
        });

        async function readGlobalOptions() {
          if (state.needSecret) return;
          try {
            const options = await call('aria2.getGlobalOption');
            const limit = number(options?.['max-overall-download-limit']);
            $('speed-limit-now').textContent = limit > 0 ? `Limited to ${bytes(limit)}/s` : 'No limit';
          } catch (error) {
            // The next poll shows what is wrong.
          }
        }

        $('limit-form').addEventListener('submit', async (event) => {
          event.preventDefault();
          const value = $('speed-limit').value.replace(/\s+/g, '') || '0';
          try {
            await act('aria2.changeGlobalOption', { 'max-overall-download-limit': value });
            await readGlobalOptions();
            notify(value === '0' ? 'No speed limit' : `Speed limit set to ${value}`);
          } catch (error) {
            // act() showed it.
          }
        });

        connect();
        """#
}
