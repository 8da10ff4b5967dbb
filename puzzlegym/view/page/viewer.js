// The episode viewer: one episode record's frames, actions, timeline and model turns, all
// from the JSON in #episode (written by puzzlegym view). Position p is the episode after p
// actions; the frame shown is the stored frame at p (or, with a stride, the stored one before
// it) and the action drawn on it is the next one, action p + 1, as the agent chose it on that
// screen. Every string from the record is shown as text (textContent), never as HTML.
(function () {
  "use strict";
  const D = JSON.parse(document.getElementById("episode").textContent);
  const W = 1280, H = 900;
  const N = D.n;
  const F = D.frames;
  const T = D.texts;
  const screen = document.getElementById("screen");
  const ctx = screen.getContext("2d", { alpha: false });
  const overlay = document.getElementById("overlay");
  const octx = overlay.getContext("2d");
  const slider = document.getElementById("slider");
  const right = document.getElementById("right");
  const timeline = document.getElementById("timeline");
  const showAction = document.getElementById("showaction");
  const OK = "#17a34a", NO = "#d7261e";

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function pct(v) { return v === null || v === undefined ? "–" : (100 * v).toFixed(1) + "%"; }
  function fmt(v) { return typeof v === "string" ? v : JSON.stringify(v); }
  // the last index i of sorted list xs (by key) with key(xs[i]) <= p, or -1
  function lastAtOrBefore(xs, p, key) {
    let lo = 0, hi = xs.length - 1, found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (key(xs[mid]) <= p) { found = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return found;
  }

  // ------------------------------------------------------------------ frames
  const steps = F.steps;            // [position, keyframe, [[x, y, image], ...]]
  const keyOf = new Int32Array(steps.length);  // the keyframe step each step composes from
  for (let i = 0, k = 0; i < steps.length; i++) { if (steps[i][1]) k = i; keyOf[i] = k; }
  const cache = new Map();          // image index -> ImageBitmap (least recently used first)
  let cachedPixels = 0;
  const CACHE_PIXELS = 48e6;        // decoded pixels kept (about 190 MB)
  async function bitmap(i) {
    let b = cache.get(i);
    if (b) { cache.delete(i); cache.set(i, b); return b; }
    const raw = atob(F.images[i]);
    const bytes = new Uint8Array(raw.length);
    for (let j = 0; j < raw.length; j++) bytes[j] = raw.charCodeAt(j);
    b = await createImageBitmap(new Blob([bytes], { type: "image/png" }),
      { colorSpaceConversion: "none", premultiplyAlpha: "none" });
    if (!cache.has(i)) {
      cache.set(i, b);
      cachedPixels += b.width * b.height;
      for (const [j, old] of cache) {
        if (cachedPixels <= CACHE_PIXELS || j === i) break;
        cache.delete(j); cachedPixels -= old.width * old.height; old.close();
      }
    }
    return cache.get(i) || b;
  }
  let drawn = -1;                   // the step composited on the canvas
  let wanted = 0, composing = null;
  function shownPosition(p) {
    return p >= F.last ? F.last : p - (p % F.stride);
  }
  async function compose(e) {
    const k = keyOf[e];
    const from = drawn >= k && drawn <= e ? drawn + 1 : k;
    const work = [];
    for (let s = from; s <= e; s++) for (const patch of steps[s][2]) work.push(patch);
    const bitmaps = await Promise.all(work.map((patch) => bitmap(patch[2])));
    bitmaps.forEach((b, j) => ctx.drawImage(b, work[j][0], work[j][1]));
    drawn = e;
  }
  async function composeWanted() {
    try {
      await null;  // the loop ends after showFrame has kept its promise
      while (drawn !== wanted) await compose(wanted);
    } finally {
      composing = null;
    }
  }
  // draw the stored frame of position p (the latest request wins); resolves when drawn
  function showFrame(p) {
    wanted = lastAtOrBefore(steps, shownPosition(p), (s) => s[0]);
    if (!composing && drawn !== wanted) composing = composeWanted();
    return composing || Promise.resolve();
  }

  // ------------------------------------------------------------------ the action on the frame
  function describe(a) {
    switch (a.type) {
      case "click": return `click (${a.x}, ${a.y})`;
      case "double_click": return `double click (${a.x}, ${a.y})`;
      case "drag": return `drag (${a.x0}, ${a.y0}) → (${a.x1}, ${a.y1})`;
      case "press_key": return `key ${a.key}`;
      case "type_text": return `type ${JSON.stringify(a.text)}`;
      case "scroll": return `scroll ${a.direction}`;
      case "answer": return `answer ${JSON.stringify(a.text)}`;
      default: return a.type;
    }
  }
  function label(text, color) {
    octx.font = "bold 26px DejaVu Sans, sans-serif";
    const w = octx.measureText(text).width + 24;
    const x = (W - w) / 2, y = H - 44;
    octx.fillStyle = "rgba(20,24,32,0.82)";
    octx.fillRect(x, y, w, 40);
    octx.strokeStyle = color; octx.lineWidth = 3; octx.strokeRect(x, y, w, 40);
    octx.fillStyle = "#fff"; octx.fillText(text, x + 12, y + 29);
  }
  function drawAction(p) {
    octx.clearRect(0, 0, W, H);
    if (!showAction.checked || p >= N) return;
    const [, a, ok] = D.actions[p];
    const color = ok ? OK : NO;
    octx.lineWidth = 5; octx.strokeStyle = color; octx.fillStyle = color;
    if (a.type === "click" || a.type === "double_click") {
      for (const r of a.type === "click" ? [22] : [16, 28]) {
        octx.beginPath(); octx.arc(a.x, a.y, r, 0, 2 * Math.PI); octx.stroke();
      }
      octx.beginPath(); octx.arc(a.x, a.y, 4, 0, 2 * Math.PI); octx.fill();
    } else if (a.type === "drag") {
      const dx = a.x1 - a.x0, dy = a.y1 - a.y0, len = Math.hypot(dx, dy) || 1;
      const ux = dx / len, uy = dy / len;
      octx.beginPath(); octx.arc(a.x0, a.y0, 10, 0, 2 * Math.PI); octx.stroke();
      octx.beginPath(); octx.moveTo(a.x0, a.y0); octx.lineTo(a.x1 - 18 * ux, a.y1 - 18 * uy);
      octx.stroke();
      octx.beginPath(); octx.moveTo(a.x1, a.y1);
      octx.lineTo(a.x1 - 30 * ux - 14 * uy, a.y1 - 30 * uy + 14 * ux);
      octx.lineTo(a.x1 - 30 * ux + 14 * uy, a.y1 - 30 * uy - 14 * ux);
      octx.closePath(); octx.fill();
    } else {
      label(describe(a), color);
    }
  }

  // ------------------------------------------------------------------ events by position
  const byAt = new Map();
  for (const ev of D.events) {
    if (!byAt.has(ev[0])) byAt.set(ev[0], []);
    byAt.get(ev[0]).push(ev);
  }
  const turns = D.turns ? D.turns.entries : [];
  const turnsAt = new Map();
  turns.forEach((t, i) => { if (!turnsAt.has(t.at)) turnsAt.set(t.at, []); turnsAt.get(t.at).push(i); });
  const requests = turns.map((t, i) => [t.at, i]).filter((x) => turns[x[1]].kind === "request");
  const targets = {
    dead: D.spans.map((s) => s.start - 1),
    level: D.levels.map((l) => l[0] - 1),
    rejected: [],
    fault: D.turns ? D.turns.faults.slice() : [],
  };
  D.actions.forEach((a, i) => { if (!a[2]) targets.rejected.push(i); });
  function jump(kind, back) {
    const xs = targets[kind];
    if (!xs.length) return;
    let to = null;
    if (back) { for (let i = xs.length - 1; i >= 0; i--) if (xs[i] < pos) { to = xs[i]; break; } }
    else { for (const x of xs) if (x > pos) { to = x; break; } }
    if (to !== null) seek(Math.max(0, to));
  }
  for (const b of document.querySelectorAll("[data-jump]")) {
    const kind = b.dataset.jump;
    b.textContent += ` (${targets[kind].length})`;
    b.disabled = !targets[kind].length;
    b.addEventListener("click", (e) => jump(kind, e.shiftKey));
  }

  // ------------------------------------------------------------------ the details column
  const EVENT_TEXT = {
    level_reached: (f) => `level ${f.level} of ${f.game} ${f.tier} reached` + (f.target ? "" : " (outside the objective)"),
    level_won: (f) => `level ${f.level} of ${f.game} ${f.tier} won`,
    restart: (f) => `level ${f.level} restarted`,
    undo: (f) => `undo on level ${f.level}`,
    left_level: (f) => `left level ${f.level} of ${f.game} ${f.tier}`,
    rejected: (f) => `move rejected by the rules: ${T[f.reason]}`,
    attempt: (f) => `attempt at level ${f.level} closed (${f.end}): ${f.moves} moves, ${f.undos} undos` + (f.dead_end ? ", reached a dead end" : ""),
    answer: (f) => `answer: ${T[f.text]}` + (f.success ? "" : " (not a success)"),
    note: (f) => `note: ${T[f.text]}`,
  };
  function snapshotAt(p) { return lastAtOrBefore(D.potential, p, (s) => s[0]); }
  function spanAt(p) { return D.spans.find((s) => s.start <= p && p < s.end) || null; }
  function section(title) { right.appendChild(el("h2", title)); }
  function actionBlock(i, title) {
    section(title);
    const [t, a, ok, scr, fb] = D.actions[i];
    const line = el("div");
    line.append(el("span", describe(a) + " "), el("span", ok ? "accepted" : "rejected", ok ? "ok" : "no"));
    right.appendChild(line);
    right.appendChild(el("div", `at ${t.toFixed(1)} s; screen after: ${T[scr]}` + (T[fb] ? `; feedback: ${T[fb]}` : ""), "meta"));
    const evs = (byAt.get(i + 1) || []).filter((e) => EVENT_TEXT[e[1]]);
    if (evs.length) {
      const ul = el("ul");
      for (const e of evs) ul.appendChild(el("li", EVENT_TEXT[e[1]](e[2])));
      right.appendChild(ul);
    }
    const span = D.spans.find((s) => s.start === i + 1);
    if (span) right.appendChild(el("div", `the fatal move: the board is a certified dead end from here until action ${span.end}` + (span.recovered_by ? ` (${span.recovered_by.replace("_", " ")})` : ""), "dead"));
  }
  function turnBlock(entry) {
    const box = el("div", null, "entry");
    const k = entry.kind;
    if (k === "request") {
      const bits = [`request (${entry.purpose || "act"})`, `${(entry.latency_s || 0).toFixed(2)} s`,
        `tokens in ${entry.prompt_tokens ?? "?"} / out ${entry.completion_tokens ?? "?"}`];
      if (entry.retries) bits.push(`retries ${entry.retries}`);
      if (entry.finish_reason) bits.push(`finish ${entry.finish_reason}`);
      box.appendChild(el("div", bits.join(" · "), entry.retries || (entry.faults && entry.faults.length) ? "meta fault" : "meta"));
      for (const f of entry.faults || []) box.appendChild(el("div", `fault retried: ${fmt(f)}`, "fault"));
      if (entry.reasoning) {
        const d = el("details"); d.appendChild(el("summary", "reasoning")); d.appendChild(el("pre", entry.reasoning));
        box.appendChild(d);
      }
      if (entry.content) { box.appendChild(el("div", "text:", "meta")); box.appendChild(el("pre", entry.content)); }
      for (const c of entry.calls || []) box.appendChild(el("pre", `${c.name}(${fmt(c.arguments)})`));
      if (!entry.calls && entry.tool_calls && entry.tool_calls.length) box.appendChild(el("div", `tool calls: ${entry.tool_calls.join(", ")}`));
    } else if (k === "turn") {
      // the action says what it is ("click (x, y)"); the tool's name alone when there is none
      box.appendChild(el("div", `→ ${entry.action ? describe(entry.action) : entry.tool}` + (entry.source === "code" ? " (from code)" : "")));
    } else if (k === "result") {
      box.appendChild(el("div", "feedback to the model:", "meta")); box.appendChild(el("pre", entry.text));
    } else if (k === "code") {
      box.appendChild(el("div", `code run: ${entry.outcome}` + (entry.gui_calls !== undefined ? `, ${entry.gui_calls} GUI calls, ${entry.screenshots} screenshots` : ""), entry.outcome === "ok" ? "meta" : "meta fault"));
      if (entry.code) box.appendChild(el("pre", entry.code));
      if (entry.output) { box.appendChild(el("div", "printed:", "meta")); box.appendChild(el("pre", entry.output)); }
      if (entry.error) { box.appendChild(el("div", "error:", "fault")); box.appendChild(el("pre", entry.error)); }
    } else if (k === "malformed") {
      box.appendChild(el("div", `malformed call ${entry.tool}: ${entry.error}`, "fault"));
    } else if (k === "harness_wait") {
      box.appendChild(el("div", `the harness waited: ${entry.reason}`, "fault"));
    } else if (k === "error") {
      box.appendChild(el("div", `the agent stopped: ${entry.error}`, "fault"));
    } else if (k === "memory") {
      box.appendChild(el("div", `memory at a restart: ${fmt(Object.fromEntries(Object.entries(entry).filter(([x]) => x !== "kind" && x !== "at")))}`));
    } else if (k !== "config" && k !== "summary") {
      box.appendChild(el("div", `${k}: ${fmt(entry)}`, "meta"));
    }
    return box;
  }
  function details(p) {
    right.replaceChildren();
    const shown = shownPosition(p);
    right.appendChild(el("div", `after ${p} of ${N} actions` + (shown !== p ? ` (frame after action ${shown}: every ${F.stride}th frame is stored)` : "")));
    if (p < N) actionBlock(p, `Next action: ${p + 1}`);
    else right.appendChild(el("div", "the episode ended here", "meta"));
    section("Board");
    const si = snapshotAt(p);
    const snap = si >= 0 ? D.potential[si] : null;
    if (!snap || snap[1] === null) right.appendChild(el("div", "no board in play", "meta"));
    else right.appendChild(el("div", `potential ${snap[1].toFixed(3)}` + (snap[3] ? "" : " (a level outside the objective)")));
    const span = spanAt(p);
    if (span) right.appendChild(el("div", `certified dead end: level ${span.level} of ${span.game} ${span.tier} since the fatal move at action ${span.start} (${span.fatal_move}); left at action ${span.end}` + (span.recovered_by ? ` by ${span.recovered_by.replace("_", " ")}` : ""), "dead"));
    const f = lastAtOrBefore(D.fgp, p, (x) => x[0]);
    right.appendChild(el("div", `objective FGP so far ${pct(f >= 0 ? D.fgp[f][1] : 0)}`, "meta"));
    if (p > 0) actionBlock(p - 1, `Last action: ${p}`);
    if (D.turns) {
      section("Model");
      let ids = turnsAt.get(p) || [];
      if (!ids.some((i) => turns[i].kind === "request")) {
        const r = lastAtOrBefore(requests, p, (x) => x[0]);
        if (r >= 0 && requests[r][0] < p) {
          right.appendChild(el("div", `continuing the reply made after action ${requests[r][0]}:`, "meta"));
          ids = [requests[r][1], ...ids];
        }
      }
      if (!ids.length) right.appendChild(el("div", "no model lines at this position", "meta"));
      for (const i of ids) right.appendChild(turnBlock(turns[i]));
      if (D.turns.cut !== null && D.turns.cut !== undefined) right.appendChild(el("div", `text of the turns from entry ${D.turns.cut} on left out (the page's bound)`, "meta"));
    }
  }

  // ------------------------------------------------------------------ the timeline
  const M = { l: 30, r: 8, t: 16, b: 22 };
  function tx(p, w) { return M.l + (N ? p / N : 0) * (w - M.l - M.r); }
  function drawTimeline(p) {
    const dpr = window.devicePixelRatio || 1;
    const w = timeline.clientWidth, h = timeline.clientHeight;
    if (timeline.width !== Math.round(w * dpr)) { timeline.width = Math.round(w * dpr); timeline.height = Math.round(h * dpr); }
    const g = timeline.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.fillStyle = "#fff";
    g.fillRect(0, 0, w, h);
    const y = (v) => M.t + (1 - v) * (h - M.t - M.b);
    g.fillStyle = "rgba(198,40,40,0.22)";
    for (const s of D.spans) g.fillRect(tx(s.start, w), M.t, Math.max(2, tx(s.end, w) - tx(s.start, w)), h - M.t - M.b);
    g.strokeStyle = "#e2e4ea"; g.lineWidth = 1;
    for (const v of [0, 0.5, 1]) { g.beginPath(); g.moveTo(M.l, y(v)); g.lineTo(w - M.r, y(v)); g.stroke(); }
    g.fillStyle = "#667"; g.font = "10px sans-serif";
    g.fillText("1", 18, y(1) + 4); g.fillText("0", 18, y(0) + 4);
    for (const l of D.levels) {
      g.strokeStyle = l[4] ? "#5a6478" : "#b8bcc6"; g.setLineDash(l[4] ? [] : [3, 3]);
      g.beginPath(); g.moveTo(tx(l[0], w), M.t); g.lineTo(tx(l[0], w), h - M.b); g.stroke();
    }
    g.setLineDash([]);
    // the board's potential (solid: a target level; dashed: elsewhere), then the FGP
    g.lineWidth = 1.5;
    for (let i = 0; i < D.potential.length; i++) {
      const s = D.potential[i];
      if (s[1] === null) continue;
      const next = i + 1 < D.potential.length ? D.potential[i + 1][0] : N;
      g.strokeStyle = s[3] ? "#1f63c6" : "#9aa6bb"; g.setLineDash(s[3] ? [] : [4, 3]);
      g.beginPath(); g.moveTo(tx(s[0], w), y(s[1])); g.lineTo(tx(next, w), y(s[1])); g.stroke();
    }
    g.setLineDash([]); g.strokeStyle = "#148a3c"; g.lineWidth = 2; g.beginPath();
    D.fgp.forEach((f, i) => {
      const x = tx(f[0], w);
      if (i === 0) g.moveTo(x, y(f[1])); else { g.lineTo(x, y(D.fgp[i - 1][1])); g.lineTo(x, y(f[1])); }
    });
    g.lineTo(tx(N, w), y(D.fgp[D.fgp.length - 1][1])); g.stroke();
    const tick = (at, color, y0, y1) => { g.strokeStyle = color; g.beginPath(); g.moveTo(tx(at, w), y0); g.lineTo(tx(at, w), y1); g.stroke(); };
    g.lineWidth = 1;
    for (const a of targets.rejected) tick(a + 1, "rgba(215,38,30,0.45)", h - 6, h - 1);
    for (const e of D.events) {
      if (e[1] === "restart") tick(e[0], "#e07b00", h - M.b, h - M.b + 9);
      else if (e[1] === "undo") tick(e[0], "#8a3ab9", h - M.b, h - M.b + 9);
      else if (e[1] === "level_won") {
        const x = tx(e[0], w); g.fillStyle = "#148a3c";
        g.beginPath(); g.moveTo(x - 5, 1); g.lineTo(x + 5, 1); g.lineTo(x, 11); g.fill();
      }
    }
    g.fillStyle = "#111";
    for (const f of targets.fault) { const x = tx(f, w); g.fillRect(x - 1.5, M.t - 6, 3, 5); }
    g.strokeStyle = "#c62828"; g.lineWidth = 1.5;
    for (const s of D.spans) tick(s.start, "#c62828", M.t, h - M.b);
    g.strokeStyle = "#111"; g.lineWidth = 2;
    g.beginPath(); g.moveTo(tx(p, w), 0); g.lineTo(tx(p, w), h); g.stroke();
  }
  function timelineSeek(e) {
    const r = timeline.getBoundingClientRect();
    const f = (e.clientX - r.left - timeline.clientLeft - M.l) / (timeline.clientWidth - M.l - M.r);
    seek(Math.round(Math.min(1, Math.max(0, f)) * N));
  }
  timeline.addEventListener("pointerdown", (e) => { timeline.setPointerCapture(e.pointerId); timelineSeek(e); });
  timeline.addEventListener("pointermove", (e) => { if (e.buttons & 1) timelineSeek(e); });
  // dashed lines (a level's start, the potential) are off the objective's target levels
  document.getElementById("legend").innerHTML = [
    ["#1f63c6", "potential"], ["#148a3c", "FGP"], ["rgba(198,40,40,0.35)", "dead end"],
    ["#5a6478", "level start"], ["#148a3c", "won ▼"], ["#e07b00", "restart"],
    ["#8a3ab9", "undo"], ["rgba(215,38,30,0.6)", "rejected"], ["#111", "fault"],
    ["repeating-linear-gradient(90deg, #5a6478 0 3px, transparent 3px 5px)", "dashed: off the objective", "dash"],
  ].map(([c, t, k]) => `<i class="${k || ""}" style="background:${c}"></i>${t}`).join("");

  // ------------------------------------------------------------------ the header
  function header() {
    const r = D.record, o = D.outcome, h = document.getElementById("head");
    h.replaceChildren();
    const title = el("h1", `${r.agent} · ${r.env_id} · seed ${r.seed}`);
    title.title = title.textContent;  // the whole line, where a long name is cut
    h.appendChild(title);
    const figs = [
      [`LC ${pct(o.lc)}`], [`FGP ${pct(o.fgp)}`], [`end: ${o.end}`, o.success ? "good" : ""],
      [`${N} actions, ${o.elapsed_s.toFixed(0)} s`],
      [`${D.spans.length} dead-end span${D.spans.length === 1 ? "" : "s"}`],
      [D.replay.ok ? "replay reproduces the record" : `replay differs: ${D.replay.detail}`, D.replay.ok ? "" : "bad"],
    ];
    if (D.replay.frames) figs.push([`${D.replay.frames} frame hashes match`]);
    if (F.stride > 1) figs.push([`every ${F.stride}th frame stored`, "bad"]);
    if (!r.finished) figs.push(["unfinished record: its process stopped before the episode ended", "bad"]);
    else if (r.ended === "max_steps") figs.push([`stopped at the step limit (${N} actions)`]);
    else if (r.ended) figs.push([`ended from outside (${r.ended})`]);
    for (const [t, c] of figs) h.appendChild(el("span", t, "fig " + (c || "")));
    if (D.index) { const a = el("a", "all episodes"); a.href = D.index; h.appendChild(a); }
  }

  // ------------------------------------------------------------------ position and input
  let pos = 0, timer = null;
  function seek(p) {
    pos = Math.max(0, Math.min(N, p | 0));
    slider.value = String(pos);
    document.getElementById("where").textContent = `${pos} / ${N}`;
    drawAction(pos);
    details(pos);
    drawTimeline(pos);
    return showFrame(pos);
  }
  function play(on) {
    if (timer) { clearInterval(timer); timer = null; }
    document.getElementById("play").innerHTML = on ? "&#10074;&#10074;" : "&#9654;";
    if (!on) return;
    const rate = Number(document.getElementById("speed").value);
    timer = setInterval(() => { if (pos >= N) play(false); else seek(pos + 1); }, 1000 / rate);
  }
  slider.max = String(N);
  slider.addEventListener("input", () => seek(Number(slider.value)));
  document.getElementById("play").addEventListener("click", () => play(!timer));
  document.getElementById("speed").addEventListener("change", () => { if (timer) play(true); });
  showAction.addEventListener("change", () => drawAction(pos));
  window.addEventListener("resize", () => drawTimeline(pos));
  window.addEventListener("keydown", (e) => {
    if (e.target && e.target.tagName === "SELECT") return;
    const step = e.shiftKey ? 10 : 1;
    const keys = { d: "dead", l: "level", r: "rejected", f: "fault" };
    if (e.key === "ArrowRight") seek(pos + step);
    else if (e.key === "ArrowLeft") seek(pos - step);
    else if (e.key === "PageDown") seek(pos + 100);
    else if (e.key === "PageUp") seek(pos - 100);
    else if (e.key === "Home") seek(0);
    else if (e.key === "End") seek(N);
    else if (e.key === " ") play(!timer);
    else if (keys[e.key.toLowerCase()]) jump(keys[e.key.toLowerCase()], e.shiftKey);
    else return;
    e.preventDefault();
  });

  header();
  const ready = seek(0);
  // for tests and scripts: the position, seeking (resolves once the frame is drawn)
  window.viewer = {
    ready: ready,
    seek: seek,
    position: () => pos,
    settled: () => composing || Promise.resolve(),
    shown: () => shownPosition(pos),
    spans: () => D.spans.map((s) => [s.start, s.end]),
    n: N,
  };
})();
