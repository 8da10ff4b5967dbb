"""Benchmarks of the in-process backend, measured in one run so ratios are comparable.

* env steps per second at full 1280×900 with an observation array no one else holds per step,
  on a mix of solver moves and random clicks: the default (pooled arrays patched where the
  screen changed) beside a full frame copy per step, on the same actions;
* board-target steps per second (``BoardActions`` over the full observations, masked random
  indices), the default beside a full frame copy per step, on the same indices;
* the rate of a plain copy of one 1280×900×3 frame, and the ratio of the two;
* rules-model transitions per second (the solver's inner loop).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from itertools import islice

import gymnasium as gym
import numpy as np

from puzzlegym.agents import SolverAgent
from puzzlegym.env import puzzle_env
from puzzlegym.game.registry import parse_env_id
from puzzlegym.solvers import Unsolvable


def _rate(n: int, seconds: float) -> float:
    return n / seconds if seconds > 0 else float("inf")


def frame_copy_rate(n: int = 2000) -> float:
    """Plain copies of one 1280×900×3 uint8 frame per second (the floor of any env that
    returns a fresh observation)."""
    frame = np.random.default_rng(0).integers(0, 256, (900, 1280, 3), dtype=np.uint8)
    t0 = time.perf_counter()
    for _ in range(n):
        frame.copy()
    return _rate(n, time.perf_counter() - t0)


def mixed_actions(env_id: str, steps: int, seed: int = 0, **env_kwargs) -> list[dict | None]:
    """A reproducible action sequence alternating solver moves and random clicks (half each),
    from the home screen, with resets (None) where the objective ends. Planning happens
    here, outside any timed loop: the benchmark measures the env, not the solver."""
    env = gym.make(env_id, **env_kwargs)
    base = puzzle_env(env, "mixed_actions")
    solver = SolverAgent(base)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    out: list[dict | None] = []
    while len(out) < steps:
        if len(out) % 2:
            action = {"type": "click", "x": int(rng.integers(1280)), "y": int(rng.integers(900))}
        else:
            try:
                action = solver()
            except (
                Unsolvable
            ):  # random clicks reached a dead end: restart the level, as a player would
                x, y = base.probe().controls["restart"].center
                action = {"type": "click", "x": x, "y": y}
        out.append(action)
        _, _, term, trunc, _ = env.step(action)
        if term or trunc:
            out.append(None)
            env.reset(seed=seed)
    env.close()
    return out


def env_step_rate(
    env_id: str,
    steps: int = 3000,
    seed: int = 0,
    actions: list[dict | None] | None = None,
    pool: bool = True,
    **env_kwargs,
) -> dict:
    """Env steps/s replaying :func:`mixed_actions` (or ``actions``), each step returning a
    1280×900×3 observation no one else holds (time inside ``env.step`` only; the resets
    between objectives are not counted as steps). ``pool=False`` makes every observation a
    full copy of the frame, as before :mod:`puzzlegym.backends.framepool`."""
    if actions is None:
        actions = mixed_actions(env_id, steps, seed, **env_kwargs)
    env = gym.make(env_id, **env_kwargs)
    if not pool:
        puzzle_env(env, "env_step_rate").backend.pool = None
    env.reset(seed=seed)
    n = resets = 0
    elapsed = 0.0  # time inside env.step only; resets are not steps
    clock = time.perf_counter
    for action in actions:
        if action is None:
            env.reset(seed=seed)
            resets += 1
            continue
        t0 = clock()
        env.step(action)
        elapsed += clock() - t0
        n += 1
    env.close()
    return {"steps": n, "seconds": elapsed, "steps_per_s": _rate(n, elapsed), "resets": resets}


def board_step_rate(env_id: str, steps: int = 2000, seed: int = 0, pool: bool = True) -> dict:
    """Board-target steps/s (:class:`~puzzlegym.wrappers.BoardActions` over the env's full
    1280×900 observations, from the level screen): masked random indices from a seeded
    generator, so ``pool=True`` and ``pool=False`` play the same steps; time inside
    ``env.step`` only. ``pool=False`` makes every observation a full copy of the frame."""
    from puzzlegym.wrappers import BoardActions

    env = BoardActions(gym.make(env_id, start="board"))
    if not pool:
        puzzle_env(env, "board_step_rate").backend.pool = None
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    elapsed, clock = 0.0, time.perf_counter
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        t0 = clock()
        _, _, term, trunc, _ = env.step(action)
        elapsed += clock() - t0
        if term or trunc:
            env.reset(seed=seed)
    env.close()
    return {"steps": steps, "seconds": elapsed, "steps_per_s": _rate(steps, elapsed)}


LAZY_OPTIONS = 16  # moves drawn from a lazy legal_moves generator per transition


def transition_rate(
    env_id: str, n: int = 200_000, seed: int = 0, max_seconds: float = 10.0
) -> float:
    """Rules-model transitions/s on the objective's last (hardest) level: each transition
    enumerates the legal moves and applies a random one, as a search expansion does; a walk
    that reaches a board with no legal move (solved, or a dead end of the games that have
    them) starts again from the initial board (the restart is not counted). A game whose
    ``legal_moves`` is a lazy generator (too many moves to list) offers its first
    ``LAZY_OPTIONS`` moves. Stops after ``n`` transitions or ``max_seconds``."""
    game, tier = parse_env_id(env_id)
    level = game.catalogue(tier)[-1]
    rules = game.rules
    rng = np.random.default_rng(seed)
    start = rules.initial_state(level)
    state = start
    picks = rng.integers(0, 1 << 30, size=n)
    apply, legal = rules.apply, rules.legal_moves
    clock = time.perf_counter
    t0 = clock()
    done = 0
    for i in range(n):
        options = legal(level, state)
        if not isinstance(options, Sequence):
            options = tuple(islice(options, LAZY_OPTIONS))
        if not options:
            state = start
            options = legal(level, state)
            if not isinstance(options, Sequence):
                options = tuple(islice(options, LAZY_OPTIONS))
        state = apply(level, state, options[picks[i] % len(options)])
        done = i + 1
        if not done & 255 and clock() - t0 > max_seconds:
            break
    elapsed = clock() - t0
    return _rate(done, elapsed)  # one transition = enumerate the legal moves, apply one


def timed_steps(env: gym.Env, actions: list, seed: int = 0) -> list[float]:
    """Seconds per ``env.step`` (observation included) replaying ``actions`` on ``env``
    from ``reset(seed=seed)``; a None action resets it again (not timed)."""
    env.reset(seed=seed)
    out = []
    clock = time.perf_counter
    for action in actions:
        if action is None:
            env.reset(seed=seed)
            continue
        t0 = clock()
        env.step(action)
        out.append(clock() - t0)
    return out


def step_latencies(env_id: str, actions: list, backend: str, seed: int = 0) -> list[float]:
    """Seconds per ``env.step`` (observation included) replaying ``actions``."""
    env = gym.make(env_id, backend=backend)
    try:
        return timed_steps(env, actions, seed)
    finally:
        env.close()


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run_browser(env_id: str, steps: int = 300, seed: int = 0) -> dict:
    """Browser step latency (median, p95; real input, PNG push, screenshot and decode) and its
    ratio to the in-process backend, on the same action sequence, in one run."""
    actions = mixed_actions(env_id, steps, seed)
    native = step_latencies(env_id, actions, "native", seed)
    browser = step_latencies(env_id, actions, "browser", seed)
    b_med, n_med = _pct(browser, 0.5), _pct(native, 0.5)
    return {
        "env_id": env_id,
        "backend": "browser",
        "steps": len(browser),
        "median_ms": round(1000 * b_med, 2),
        "p95_ms": round(1000 * _pct(browser, 0.95), 2),
        "native_median_ms": round(1000 * n_med, 3),
        "ratio_to_native": round(b_med / n_med, 1),
        "steps_per_s": round(len(browser) / sum(browser), 1),
    }


def http_action_rate(env_id: str, requests: int = 400, seed: int = 0) -> dict:
    """Requests/s for ``POST /action`` of a real ``serve`` server on loopback (in-process
    backend, one keep-alive client), replaying :func:`mixed_actions`; every response carries
    the PNG of the screen."""
    import http.client
    import json
    import tempfile
    import threading

    from puzzlegym.service.serve import Service, make_serve_server

    actions = [a for a in mixed_actions(env_id, requests, seed) if a is not None][:requests]
    with tempfile.TemporaryDirectory() as tmp:
        service = Service(backend="native", clock="sim", record_dir=tmp)
        server = make_serve_server("127.0.0.1", 0, service)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        host, port = server.server_address[:2]
        conn = http.client.HTTPConnection(host, port, timeout=60)
        try:

            def post(path: str, body: dict) -> dict:
                conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
                resp = conn.getresponse()
                doc = json.loads(resp.read())
                if resp.status != 200:
                    raise RuntimeError(f"{path}: {resp.status} {doc}")
                return doc

            post("/reset", {"objective": env_id, "seed": seed})
            t0 = time.perf_counter()
            done = 0
            for action in actions:
                if post("/action", action)["done"]:
                    post("/reset", {"objective": env_id, "seed": seed})
                done += 1
            elapsed = time.perf_counter() - t0
        finally:
            conn.close()
            server.shutdown()
            server.server_close()
            service.close()
    return {"env_id": env_id, "requests": done, "requests_per_s": round(done / elapsed, 1)}


def run(
    env_id: str, steps: int = 3000, backend: str = "native", transitions: int = 200_000
) -> dict:
    """The ``puzzlegym bench`` figures for any registered id (``transitions``: rules-model
    transitions timed; a smaller number gives a quick, noisier figure)."""
    if backend == "browser":
        return run_browser(env_id, steps)
    copy_rate = frame_copy_rate()
    actions = mixed_actions(env_id, steps)
    # the pooled observations (the default) and a full copy per step, on the same actions,
    # alternated twice so that the machine's drift falls on both alike
    runs: dict[bool, list[dict]] = {True: [], False: []}
    board: dict[bool, list[dict]] = {True: [], False: []}
    for pool in (True, False, True, False):
        runs[pool].append(env_step_rate(env_id, actions=actions, pool=pool))
        board[pool].append(board_step_rate(env_id, steps, pool=pool))

    def pooled(rs: list[dict]) -> float:
        return sum(r["steps"] for r in rs) / sum(r["seconds"] for r in rs)

    rate = {pool: pooled(rs) for pool, rs in runs.items()}
    board_rate = {pool: pooled(rs) for pool, rs in board.items()}
    return {
        "env_id": env_id,
        "steps": runs[True][0]["steps"],
        "steps_per_s": round(rate[True], 1),
        "steps_per_s_full_copy": round(rate[False], 1),
        "pool_speedup": round(rate[True] / rate[False], 3),
        "board_steps_per_s": round(board_rate[True], 1),
        "board_steps_per_s_full_copy": round(board_rate[False], 1),
        "board_pool_speedup": round(board_rate[True] / board_rate[False], 3),
        "frame_copies_per_s": round(copy_rate, 1),
        "ratio_to_frame_copy": round(rate[True] / copy_rate, 3),
        "rules_transitions_per_s": round(transition_rate(env_id, n=transitions), 1),
    }


__all__ = [
    "board_step_rate",
    "env_step_rate",
    "frame_copy_rate",
    "http_action_rate",
    "mixed_actions",
    "run",
    "run_browser",
    "step_latencies",
    "timed_steps",
    "transition_rate",
]
