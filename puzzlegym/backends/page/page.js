// The puzzlegym page: shows the frames the renderer produces in a canvas and reports the
// page's real pointer and keyboard events. It receives pixels only, never game state.
(function () {
  "use strict";
  const canvas = document.getElementById("screen");
  const ctx = canvas.getContext("2d", { alpha: false });
  const sink = document.getElementById("sink");
  const GAME_KEYS = new Set(["Enter", "Tab", "Escape", "Backspace", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"]);
  let queue = [];
  let listeners = [];

  function t() { return performance.now(); }
  function push(ev) {
    queue.push(ev);
    for (const fn of listeners) fn(ev);
  }
  function pos(e) {
    const r = canvas.getBoundingClientRect();
    return [Math.round(e.clientX - r.left), Math.round(e.clientY - r.top)];
  }
  canvas.addEventListener("pointerdown", (e) => {
    canvas.setPointerCapture(e.pointerId);
    const [x, y] = pos(e);
    push({ kind: "pointer_down", t: t(), x: x, y: y });
    sink.focus();
  });
  canvas.addEventListener("pointermove", (e) => {
    if (!(e.buttons & 1) || window.PUZZLEGYM_REMOTE) return;  // only press and release matter remotely
    const [x, y] = pos(e);
    push({ kind: "pointer_move", t: t(), x: x, y: y });
  });
  canvas.addEventListener("pointerup", (e) => {
    const [x, y] = pos(e);
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

  // Human play (`puzzlegym play`): send the events to the server, draw the regions it returns.
  if (window.PUZZLEGYM_REMOTE) {
    let chain = fetch("play/frame").then((r) => r.json()).then(drawPatches);
    const flush = () => {
      const batch = window.puzzlegym.takeEvents();
      if (!batch.length) return;
      chain = chain.then(() => fetch("play/events", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(batch),
      })).then((r) => r.json()).then(drawPatches).catch((e) => console.error(e));
    };
    listeners.push((ev) => { if (ev.kind !== "pointer_down" && ev.kind !== "pointer_move") flush(); });
  }
  sink.focus();
})();
