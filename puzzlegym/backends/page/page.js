// The puzzlegym page: shows the frames the renderer produces in a canvas and reports the
// page's real pointer and keyboard events. It receives pixels only, never game state.
//
// For the browser backend (agents) the canvas is the 1280x900 viewport itself, at scale 1.
// For human play (`puzzlegym play`, window.PUZZLEGYM_REMOTE) the canvas is scaled to fit the
// window (aspect kept, centred) and pointer positions are mapped back to screen pixels; the
// server's replies also carry the frames of a move's motion and a drag's preview, and the
// pointer's shape (one of CURSORS) and a status line the page shows over the window's corner,
// outside the frames: the level's moves and par, a warning off the objective, and where
// Restart is while a restart would throw away a long attempt (the page asks first).
(function () {
  "use strict";
  const W = 1280, H = 900;
  const canvas = document.getElementById("screen");
  const ctx = canvas.getContext("2d", { alpha: false });
  const sink = document.getElementById("sink");
  const remote = !!window.PUZZLEGYM_REMOTE;
  const GAME_KEYS = new Set(["Enter", "Tab", "Escape", "Backspace", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"]);
  const CURSORS = new Set(["default", "pointer", "grab"]);
  const FRAME_MS = 30;  // between the frames of a move's motion
  let queue = [];
  let listeners = [];
  let cursor = "default";
  let pressed = false;

  function t() { return performance.now(); }
  function push(ev) {
    const last = queue[queue.length - 1];
    if (remote && ev.kind === "pointer_move" && last && last.kind === "pointer_move") {
      queue[queue.length - 1] = ev;  // only the latest position of a run of moves matters
    } else {
      queue.push(ev);
    }
    for (const fn of listeners) fn(ev);
  }
  // the screen pixel under a pointer event: the canvas box maps onto 1280x900 exactly
  function pos(e) {
    const r = canvas.getBoundingClientRect();
    const x = Math.floor((e.clientX - r.left) * W / r.width);
    const y = Math.floor((e.clientY - r.top) * H / r.height);
    return [Math.min(W - 1, Math.max(0, x)), Math.min(H - 1, Math.max(0, y))];
  }
  function showCursor() {
    canvas.style.cursor = pressed && cursor === "grab" ? "grabbing" : cursor;
  }
  function fit() {
    const s = Math.min(window.innerWidth / W, window.innerHeight / H);
    const w = W * s, h = H * s;
    canvas.style.width = w + "px";
    canvas.style.height = h + "px";
    canvas.style.left = (window.innerWidth - w) / 2 + "px";
    canvas.style.top = (window.innerHeight - h) / 2 + "px";
  }
  let status = null;  // the server's last status (remote only)
  let swallow = false;  // the pointer-up of a press already handled (a Restart confirmation)
  const statusBox = remote ? document.createElement("div") : null;
  if (remote) {
    canvas.style.position = "absolute";
    fit();
    window.addEventListener("resize", fit);
    statusBox.id = "status";
    statusBox.setAttribute("aria-live", "polite");
    statusBox.style.cssText = "position:fixed;left:8px;top:6px;z-index:2;pointer-events:none;" +
      "font:13px/1.35 system-ui,'DejaVu Sans',sans-serif;color:#f3f5f9;max-width:40ch;" +
      "background:rgba(27,36,51,0.82);padding:3px 8px;border-radius:4px;";
    document.body.appendChild(statusBox);
  }
  function showStatus(s) {
    status = s;
    statusBox.textContent = s.text;
    if (s.warning) {
      const w = document.createElement("div");
      w.id = "warning";
      w.style.color = "#ffcf5c";
      w.textContent = "\u26a0 " + s.warning;
      statusBox.appendChild(w);
    }
  }
  function onRestart(x, y) {
    const r = status && status.restart;
    return !!r && x >= r[0] && x < r[0] + r[2] && y >= r[1] && y < r[1] + r[3];
  }
  canvas.addEventListener("pointerdown", (e) => {
    canvas.setPointerCapture(e.pointerId);
    const [x, y] = pos(e);
    if (remote && onRestart(x, y)) {
      // a restart would throw away a long attempt: ask, then click (or not) at once
      swallow = true;
      if (window.confirm("Restart this level? The moves of this attempt are lost.")) {
        push({ kind: "pointer_down", t: t(), x: x, y: y });
        push({ kind: "pointer_up", t: t(), x: x, y: y });
      }
      return;
    }
    pressed = true;
    showCursor();
    push({ kind: "pointer_down", t: t(), x: x, y: y });
    sink.focus();
  });
  canvas.addEventListener("pointermove", (e) => {
    // remotely the server previews held drags and shapes the pointer; moves are no actions
    if (!(e.buttons & 1) && !remote) return;
    const [x, y] = pos(e);
    push({ kind: "pointer_move", t: t(), x: x, y: y });
  });
  canvas.addEventListener("pointerup", (e) => {
    if (swallow) { swallow = false; return; }
    const [x, y] = pos(e);
    pressed = false;
    showCursor();
    push({ kind: "pointer_up", t: t(), x: x, y: y });
  });
  window.addEventListener("keydown", (e) => {
    let key = e.key === " " ? "Space" : e.key;
    if (GAME_KEYS.has(key) || key === "Space" || /^[a-zA-Z]$/.test(key)) {
      e.preventDefault();
      push({ kind: "key", t: t(), value: key });
    }
  });
  sink.addEventListener("input", (e) => {
    if (e.data) push({ kind: "text", t: t(), value: e.data });
    sink.value = "";
  });
  window.addEventListener("wheel", (e) => {
    e.preventDefault();
    const ax = Math.abs(e.deltaX), ay = Math.abs(e.deltaY);
    if (ax === 0 && ay === 0) return;
    const dir = ay >= ax ? (e.deltaY > 0 ? "down" : "up") : (e.deltaX > 0 ? "right" : "left");
    push({ kind: "wheel", t: t(), value: dir });
  }, { passive: false });

  async function drawPatches(patches) {
    // patches: [[x, y, base64 PNG], ...]; decode all, then draw in order
    const bitmaps = await Promise.all(patches.map(async (p) => {
      const bytes = Uint8Array.from(atob(p[2]), (c) => c.charCodeAt(0));
      return createImageBitmap(new Blob([bytes], { type: "image/png" }));
    }));
    bitmaps.forEach((bmp, i) => { ctx.drawImage(bmp, patches[i][0], patches[i][1]); bmp.close(); });
    return true;
  }

  window.puzzlegym = {
    drawPatches: drawPatches,
    takeEvents: function () { const q = queue; queue = []; return q; },
  };

  // Human play: send the events to the server, draw the frames it returns, one request at a
  // time (events that arrive meanwhile go in the next batch).
  if (remote) {
    const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
    async function show(reply) {
      const frames = reply.frames;
      for (let i = 0; i < frames.length; i++) {
        if (i > 0) await sleep(FRAME_MS);
        await drawPatches(frames[i]);
      }
      if (CURSORS.has(reply.cursor)) { cursor = reply.cursor; showCursor(); }
      if (reply.status && typeof reply.status.text === "string") showStatus(reply.status);
    }
    let busy = false;
    // `puzzlegym play` on a non-loopback host prints the page's address with its token in the
    // fragment (#token=...), which the browser never sends; the page sends it as a header.
    const token = new URLSearchParams(location.hash.slice(1)).get("token");
    const auth = token === null ? {} : { Authorization: "Bearer " + token };
    async function send(path, batch) {
      busy = true;
      try {
        const options = batch === null ? { headers: auth } : {
          method: "POST",
          headers: { "Content-Type": "application/json", ...auth },
          body: JSON.stringify(batch),
        };
        const response = await fetch(path, options);
        const reply = await response.json();
        if (response.status === 401) {
          showStatus({ text: "", warning: "this page needs its token: open the address " +
            "puzzlegym play printed, the one that ends with #token=..." });
        } else if (typeof reply.error === "string") {
          showStatus({ text: "", warning: reply.error });
        } else {
          await show(reply);
        }
      } catch (e) {
        console.error(e);
      }
      busy = false;
      flush();
    }
    function flush() {
      if (busy || !queue.length) return;
      send("play/events", window.puzzlegym.takeEvents());
    }
    listeners.push(() => flush());
    send("play/frame", null);
  }
  sink.focus();
})();
