// The puzzlegym page: shows the frames the renderer produces in a canvas and reports the
// page's real pointer and keyboard events. It receives pixels only, never game state.
//
// For the browser backend (agents) the canvas is the 1280x900 viewport itself, at scale 1.
// For human play (`puzzlegym play`, window.PUZZLEGYM_REMOTE) the canvas is scaled to fit the
// window (aspect kept, centred) and pointer positions are mapped back to screen pixels; the
// server's replies also carry the frames of a move's motion and a drag's preview, and the
// pointer's shape (one of CURSORS) and a status line the page shows in the window's
// bottom-left corner, outside the frames: the level's moves and par, a warning off the
// objective, where Restart is while a restart would throw away a long attempt (the page asks
// first), and once the episode is over, Play again and Next level. A Rules button shows the
// game's rule card.
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
    // the window's bottom-left corner: at 1366x768 the top one covers the screen's title
    statusBox.style.cssText = "position:fixed;left:8px;bottom:6px;z-index:2;pointer-events:none;" +
      "font:13px/1.35 system-ui,'DejaVu Sans',sans-serif;color:#f3f5f9;max-width:40ch;" +
      "background:rgba(27,36,51,0.82);padding:3px 8px;border-radius:4px;";
    document.body.appendChild(statusBox);
  }
  function button(label, onClick) {
    const b = document.createElement("button");
    b.textContent = label;
    b.style.cssText = "pointer-events:auto;margin:4px 6px 0 0;padding:2px 10px;" +
      "font:13px/1.35 system-ui,'DejaVu Sans',sans-serif;";
    b.addEventListener("click", (e) => { e.stopPropagation(); onClick(); sink.focus(); });
    return b;
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
    if (s.over && typeof s.over.text === "string") {
      // the episode has ended and is recorded: play it again, or go on to the next level
      const o = document.createElement("div");
      o.id = "over";
      o.style.cssText = "color:#a8f0b8;margin-top:3px;";
      o.textContent = s.over.text;
      o.appendChild(document.createElement("br"));
      o.appendChild(button("Play again", () => window.puzzlegym.post("play/again")));
      if (Number.isInteger(s.over.next_level)) {
        o.appendChild(button(`Next level (${s.over.next_level})`, () => window.puzzlegym.post("play/next")));
      }
      statusBox.appendChild(o);
    }
  }
  // the game's rule card, over the page until closed (keys go to it, not to the game)
  let rulesBox = null;
  function closeRules() { if (rulesBox) { rulesBox.remove(); rulesBox = null; sink.focus(); } }
  function showRules(card) {
    closeRules();
    rulesBox = document.createElement("div");
    rulesBox.id = "rules";
    rulesBox.style.cssText = "position:fixed;inset:0;z-index:3;background:rgba(16,22,33,0.6);" +
      "display:flex;align-items:center;justify-content:center;";
    const panel = document.createElement("div");
    panel.style.cssText = "background:#fff;color:#1d2533;max-width:720px;max-height:80vh;overflow:auto;" +
      "padding:14px 18px;border-radius:6px;font:14px/1.45 system-ui,'DejaVu Sans',sans-serif;";
    const h = document.createElement("h2");
    h.textContent = `Rules: ${card.title}`;
    h.style.cssText = "margin:0 0 8px;font-size:17px;";
    const text = document.createElement("div");
    text.style.whiteSpace = "pre-wrap";
    text.textContent = card.text.split("\n").filter((l) => !l.startsWith("# ")).join("\n").trim();
    panel.append(h, text, button("Close", closeRules));
    rulesBox.appendChild(panel);
    rulesBox.addEventListener("click", (e) => { if (e.target === rulesBox) closeRules(); });
    document.body.appendChild(rulesBox);
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
    if (rulesBox) { if (e.key === "Escape") closeRules(); return; }
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
    window.puzzlegym.post = (path) => { if (!busy) send(path, {}); };
    const rules = button("Rules", async () => {
      try {
        const response = await fetch("play/rules", { headers: auth });
        if (response.ok) showRules(await response.json());
      } catch (e) {
        console.error(e);
      }
    });
    rules.id = "rules-button";
    rules.style.cssText += "position:fixed;right:8px;bottom:6px;z-index:2;margin:0;";
    document.body.appendChild(rules);
    send("play/frame", null);
  }
  sink.focus();
})();
