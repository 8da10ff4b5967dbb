"""Finding checkpoints: certified dead ends (D) and their solvable controls (N).

* **D**: a settled, unfinished board that the exhaustive certifier proves unsolvable: the
  first such board of a dead-end run (the board the fatal move left), so the takeover starts
  where the level was lost.
* **N**: a board on a verified solution path of the same level at the same depth (moves since
  the level's ready board; clamped below the solution's length so it is unfinished). The
  solution is the solver's from the ready board; it is verified twice: the rules replay the
  remaining moves to a solved board, and a GUI continuation from the restored checkpoint
  wins the level.

Three sources, each returning lab checkpoints (:mod:`puzzlegym.lab.checkpoints`) whose
prefix is a legal GUI-action sequence from the env's ``reset(seed)``:

* :func:`find_in_record`: an episode record (``manifest.json`` + ``log.jsonl``, e.g. from
  ``puzzlegym run --agent random``); the record's own actions are the prefix;
* :func:`find_on_solution`: a solver trajectory; D boards are one fatal move off the
  solution path, N boards the path one move further;
* :func:`find_in_random_play`: seeded random legal moves from the level's ready board until
  the certifier proves a dead end.

Every checkpoint is captured by replaying its prefix on a fresh native env
(:func:`puzzlegym.lab.controller.capture`), so the prefix is known to reproduce it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import gymnasium as gym

from puzzlegym import solvers
from puzzlegym.base.actions import to_dict
from puzzlegym.base.errors import CheckpointError, ConfigError, LevelError, RecordError
from puzzlegym.base.fields import check_count
from puzzlegym.env import puzzle_env
from puzzlegym.env.checkpoint import Checkpoint
from puzzlegym.env.probe import LEVEL, Board
from puzzlegym.game import Rejected
from puzzlegym.game.registry import catalogue_sha256, parse_env_id
from puzzlegym.lab.checkpoints import (
    MAX_PREFIX,
    certificate_of,
    check_certificate,
    checkpoint_name,
    frame_digest,
)
from puzzlegym.lab.controller import capture, make_env
from puzzlegym.record.events import LevelWon, thaw
from puzzlegym.record.files import read_json, read_log

__all__ = [
    "MAX_FOUND",
    "PLAYOUTS",
    "PLAYOUT_MOVES",
    "find_in_random_play",
    "find_in_record",
    "find_on_solution",
    "move_actions",
    "pair",
    "play_moves",
]

MAX_FOUND = 1000  # D checkpoints taken from one source
MAX_PLAYOUT_MOVES = 2000
MAX_PLAYOUTS = 10_000
PLAYOUTS = 200  # find_in_random_play's default playouts
PLAYOUT_MOVES = 500  # and moves per playout


# ---------------------------------------------------------------------- shared
def _board(env: gym.Env) -> Board:
    """The board in play of ``env``; raises :class:`CheckpointError` when none is."""
    board = puzzle_env(env, "lab").probe().board
    if board is None:
        raise CheckpointError("no board in play: the env is not on a level screen")
    return board


def move_actions(env: gym.Env, move) -> list[dict]:
    """The GUI actions (dicts) that perform rules ``move`` on the board in play of ``env``."""
    return [to_dict(a) for a in _board(env).actions_for_move(move)]


def play_moves(env: gym.Env, moves) -> list[dict]:
    """Perform rules ``moves`` on the board in play of ``env`` through the view's GUI actions;
    returns those actions. Raises if a move does not take effect."""
    base = puzzle_env(env, "play_moves")
    done = []
    for move in moves:
        board = _board(env)
        expected = board.game.rules.apply(board.level, board.state, move)
        for action in move_actions(env, move):
            base.step(action)
            done.append(action)
        after = base.probe().board
        if after is None or after.state != expected:
            raise CheckpointError(f"move {move!r} did not take effect through its GUI actions")
    return done


def _replayed(config: dict, seed: int | None, prefix: list) -> gym.Env:
    """A fresh native env after ``reset(seed)`` and ``prefix`` (the caller closes it)."""
    env = make_env(config, backend="native")
    base = puzzle_env(env, "lab")
    base.reset(seed=seed)
    for action in prefix:
        base.step(action)
    return env


def _certificate(
    env: gym.Env, obs, cls: str, seed: int | None, prefix: list, source: dict, **extra: Any
) -> dict:
    probe = puzzle_env(env, "lab").probe()
    board = probe.board
    if probe.screen != LEVEL or board is None or board.solved:
        raise CheckpointError("a lab checkpoint is a settled, unfinished board on the level screen")
    verdict = solvers.certify(board.level, board.state)
    legal = board.legal_moves()
    snap = probe.snapshot
    details = (snap.get("details") or {}) if snap is not None else {}
    cert = {
        "class": cls,
        "verdict": verdict,
        "game": board.game.name,
        "tier": board.tier,
        "level": board.number,
        "depth": board.depth,
        "actions": probe.actions,
        "seed": seed,
        "prefix": list(prefix),
        "frame_sha256": frame_digest(obs),
        "visible": not legal,
        "legal_moves": len(legal),
        "details": thaw(details),
        "solution": None,
        "fatal_move": None,
        "match": None,
        "source": source,
        **extra,
    }
    return cert


def _make(
    config: dict, seed: int | None, prefix: list, cls: str, source: dict, **extra: Any
) -> Checkpoint:
    """Capture the checkpoint at the end of ``prefix`` and attach its certificate; for N,
    verify the solution twice (rules, then GUI from the restored checkpoint)."""
    if len(prefix) > MAX_PREFIX:
        raise CheckpointError(f"prefix: {len(prefix)} actions; at most {MAX_PREFIX}")
    ckpt, obs, env = capture(config, seed, prefix)
    try:
        cert = _certificate(env, obs, cls, seed, prefix, source, **extra)
        board = _board(env)
        if cls == "D" and cert["verdict"] != "dead_end":
            raise CheckpointError(f"not a dead end: the certifier says {cert['verdict']!r}")
        if cls == "N":
            if cert["verdict"] != "solvable":
                raise CheckpointError(f"not solvable: the certifier says {cert['verdict']!r}")
            solution = list(solvers.solve(board.level, board.state).moves)
            cert["solution"] = json.loads(json.dumps(solution))
            _verify_solution(board, solution)
    finally:
        env.close()
    ckpt = Checkpoint(
        ckpt.config, ckpt.payload, ckpt.catalogue, ckpt.version, check_certificate(cert)
    )
    if cls == "N":
        _verify_by_gui(ckpt)
    return ckpt


def _verify_solution(board, solution) -> None:
    rules, state = board.game.rules, board.state
    for move in solution:
        state = rules.apply(board.level, state, move)
        if isinstance(state, Rejected):
            raise CheckpointError(f"solution: move {move!r} is rejected by the rules")
    if not rules.is_solved(board.level, state):
        raise CheckpointError("solution: the remaining moves do not solve the level")


def _verify_by_gui(ckpt: Checkpoint) -> None:
    """Restore ``ckpt`` in a scratch env and play its solution through GUI actions: the
    evaluator must record the level's win."""
    cert = certificate_of(ckpt)
    env = make_env(ckpt.config, backend="native")
    try:
        env.reset(options={"checkpoint": ckpt})
        base = puzzle_env(env, "lab")
        where = (cert["game"], cert["tier"], cert["level"])
        won: list[LevelWon] = []
        with base.subscribe(lambda e: won.append(e) if isinstance(e, LevelWon) else None):
            for move in cert["solution"]:
                for action in move_actions(env, tuple(move) if isinstance(move, list) else move):
                    base.step(action)
        if not any((e.game, e.tier, e.level) == where for e in won):
            raise CheckpointError(
                "N checkpoint: playing its solution through the GUI did not win the level"
            )
    finally:
        env.close()


def pair(d: Checkpoint, n: Checkpoint) -> tuple[Checkpoint, Checkpoint]:
    """D and N with each other's file stem in ``match``."""
    dn, nn = checkpoint_name(d), checkpoint_name(n)
    return (
        Checkpoint(d.config, d.payload, d.catalogue, d.version, {**certificate_of(d), "match": nn}),
        Checkpoint(n.config, n.payload, n.catalogue, n.version, {**certificate_of(n), "match": dn}),
    )


def _control(
    config: dict, seed: int | None, ready_prefix: list, depth: int, source: dict
) -> Checkpoint:
    """The N control of the level whose ready board ``ready_prefix`` reaches, at ``depth``:
    ``min(depth, length - 1)`` moves of the solver's solution from the ready board."""
    env = _replayed(config, seed, ready_prefix)
    try:
        board = _board(env)
        solution = solvers.solve(board.level, board.state).moves
        k = max(0, min(depth, len(solution) - 1))
        moves = play_moves(env, solution[:k])
    finally:
        env.close()
    return _make(
        config,
        seed,
        list(ready_prefix) + moves,
        "N",
        {**source, "path": "solution", "solution_moves": k},
    )


# ---------------------------------------------------------------------- records
def _read_record(directory: str | Path) -> tuple[dict, list[dict]]:
    d = Path(directory)
    try:
        manifest = read_json(d / "manifest.json", "record manifest")
    except RecordError as exc:
        raise CheckpointError(f"{d}: not an episode record ({exc})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("config"), dict):
        raise CheckpointError(f"{d}/manifest.json: no env config")
    game, _tier = parse_env_id(manifest["config"].get("env_id", ""))
    if manifest.get("catalogue_sha256") != catalogue_sha256([game.name]):
        raise LevelError(
            f"{d}: the record was made with another level catalogue; "
            "its boards cannot be rebuilt here"
        )
    return manifest, read_log(d)


def find_in_record(
    directory: str | Path, *, limit: int | None = None, controls: bool = True
) -> list[Checkpoint]:
    """D checkpoints at the first certified-unsolvable board of each dead-end run in an
    episode record (at most ``limit``), each with its N control (``controls``) matched by
    level and depth. The prefix is the record's own actions; the record's boards are
    re-checked on the rebuilt env (states must match the logged snapshots)."""
    manifest, log = _read_record(directory)
    config, seed = manifest["config"], manifest.get("seed")
    parse_env_id(config.get("env_id", ""))
    actions = [rec for rec in log if rec.get("kind") == "action"]
    if [rec["actions"] for rec in actions] != list(range(1, len(actions) + 1)):
        raise CheckpointError(f"{directory}: the record's action counts are not 1..n")
    # the first dead board of each run, and the step of the ready board it belongs to
    found: list[tuple[int, int, dict]] = []  # (dead step, ready step, snapshot)
    ready: dict[tuple, int] = {}
    dead: dict[tuple, bool] = {}
    for snap in (rec for rec in log if rec.get("kind") == "snapshot"):
        key = (snap["game"], snap["tier"], snap["level"])
        if snap["cause"] in ("ready", "restart"):
            ready[key], dead[key] = snap["actions"], bool(snap["dead_end"])
            continue
        was = dead.get(key, False)
        dead[key] = bool(snap["dead_end"])
        if (
            snap["cause"] == "move"
            and snap["dead_end"]
            and not was
            and not snap["solved"]
            and key in ready
        ):
            found.append((snap["actions"], ready[key], snap))
    found = found[: MAX_FOUND if limit is None else min(limit, MAX_FOUND)]
    fatal = {
        run["fatal_actions"]: run["fatal_move"]
        for rec in log
        if rec.get("kind") == "attempt"
        for run in rec.get("runs", [])
    }
    source = {"kind": "record", "record": str(Path(directory)), "agent": manifest.get("agent")}
    out: list[Checkpoint] = []
    controls_made: dict[tuple, Checkpoint] = {}
    prefix_all = [rec["action"] for rec in actions]
    for step, ready_step, snap in found:
        d = _make(
            config,
            seed,
            prefix_all[:step],
            "D",
            {**source, "record_step": step},
            fatal_move=fatal.get(step),
        )
        cert = certificate_of(d)
        g_state = d.payload["suite"]["board"]["state"]
        if json.dumps(g_state, sort_keys=True) != json.dumps(snap["state"], sort_keys=True):
            raise CheckpointError(
                f"{directory}: replaying the record does not reach its logged board at step {step}"
            )
        if not controls:
            out.append(d)
            continue
        at = (ready_step, cert["depth"])
        if at not in controls_made:
            controls_made[at] = _control(
                config, seed, prefix_all[:ready_step], cert["depth"], source
            )
        d, n = pair(d, controls_made[at])
        controls_made[at] = n
        out.append(d)
    out.extend(controls_made.values())
    return out


# ---------------------------------------------------------------------- solver trajectories
def _board_config(env_id: str, level: int, **env_kwargs: Any) -> dict:
    env = gym.make(env_id, start="board", level=level, **env_kwargs)
    try:
        return dict(puzzle_env(env, "lab").config)
    finally:
        env.close()


def _board_of(config: dict, seed: int) -> tuple[Any, Any]:
    """The level an env of ``config`` starts on after ``reset(seed=seed)``, and its rules."""
    env = make_env(config, backend="native")
    try:
        puzzle_env(env, "lab").reset(seed=seed)
        board = _board(env)
        return board.level, board.game.rules
    finally:
        env.close()


def _depths(length: int, count: int) -> list[int]:
    """``count`` depths spread evenly over ``0 .. length - 2``."""
    top = max(0, length - 2)
    if count <= 1:
        return [top // 2]
    return sorted({round(i * top / (count - 1)) for i in range(count)})


def find_on_solution(
    env_id: str, level: int, *, count: int = 3, seed: int = 0, **env_kwargs: Any
) -> list[Checkpoint]:
    """Up to ``count`` D/N pairs along the solver's solution of ``level`` (1-based, the env
    starting on its board): at evenly spread depths ``i``, D plays ``i`` solution moves and
    then a fatal move (a legal move to a certified dead end; chosen with ``seed``), N plays
    ``i + 1`` solution moves. Depths without a fatal move are skipped."""
    config = _board_config(env_id, level, **env_kwargs)
    lv, rules = _board_of(config, seed)
    solution = solvers.solve(lv).moves
    rng = random.Random(f"puzzlegym/lab/solution/{env_id}/{level}/{seed}")
    source = {"kind": "solution", "env_id": env_id, "level": level, "seed": seed}
    out: list[Checkpoint] = []
    for depth in _depths(len(solution), count):
        state = rules.initial_state(lv)
        for move in solution[:depth]:
            state = rules.apply(lv, state, move)
        fatal = [
            m
            for m in rules.legal_moves(lv, state)
            if solvers.certify(lv, rules.apply(lv, state, m)) == "dead_end"
        ]
        if not fatal:
            continue
        move = fatal[rng.randrange(len(fatal))]
        env = make_env(config, backend="native")
        try:
            puzzle_env(env, "lab").reset(seed=seed)
            on_path = play_moves(env, solution[:depth])
            next_on_path = move_actions(env, solution[depth])
            off = play_moves(env, [move])
        finally:
            env.close()
        d = _make(
            config,
            seed,
            on_path + off,
            "D",
            {**source, "path": "off_solution", "solution_moves": depth},
            fatal_move=json.loads(json.dumps(move)),
        )
        n = _make(
            config,
            seed,
            on_path + next_on_path,
            "N",
            {**source, "path": "solution", "solution_moves": depth + 1},
        )
        out.extend(pair(d, n))
    return out


# ---------------------------------------------------------------------- random play
def find_in_random_play(
    env_id: str,
    level: int,
    *,
    count: int = 3,
    seed: int = 0,
    max_moves: int = PLAYOUT_MOVES,
    max_playouts: int = PLAYOUTS,
    **env_kwargs: Any,
) -> list[Checkpoint]:
    """Up to ``count`` D checkpoints from seeded random play on ``level`` (1-based, the env
    starting on its board): each playout draws legal moves uniformly until the certifier
    proves the board unsolvable (the D board), the level is solved, no move is left, or
    ``max_moves``; at most ``max_playouts`` playouts. Each D gets its N control at the same
    depth on the solver's path."""
    check_count(max_playouts, "max_playouts", 1, MAX_PLAYOUTS, ConfigError)
    check_count(max_moves, "max_moves", 1, MAX_PLAYOUT_MOVES, ConfigError)
    config = _board_config(env_id, level, **env_kwargs)
    lv, rules = _board_of(config, seed)
    source = {"kind": "random", "env_id": env_id, "level": level, "seed": seed}
    out: list[Checkpoint] = []
    controls_made: dict[int, Checkpoint] = {}
    seen: set = set()
    for p in range(max_playouts):
        if len([c for c in out if certificate_of(c)["class"] == "D"]) >= count:
            break
        rng = random.Random(f"puzzlegym/lab/random/{env_id}/{level}/{seed}/{p}")
        state, moves = rules.initial_state(lv), []
        for _ in range(max_moves):
            legal = list(rules.legal_moves(lv, state))
            if rules.is_solved(lv, state) or not legal:
                break
            move = legal[rng.randrange(len(legal))]
            state = rules.apply(lv, state, move)
            moves.append(move)
            if solvers.certify(lv, state) == "dead_end":
                break
        if solvers.certify(lv, state) != "dead_end" or solvers.canonical_key(lv, state) in seen:
            continue
        seen.add(solvers.canonical_key(lv, state))
        env = make_env(config, backend="native")
        try:
            puzzle_env(env, "lab").reset(seed=seed)
            prefix = play_moves(env, moves)
        finally:
            env.close()
        d = _make(
            config,
            seed,
            prefix,
            "D",
            {**source, "playout": p},
            fatal_move=json.loads(json.dumps(moves[-1])),
        )
        depth = certificate_of(d)["depth"]
        if depth not in controls_made:
            controls_made[depth] = _control(config, seed, [], depth, source)
        d, controls_made[depth] = pair(d, controls_made[depth])
        out.append(d)
    return out + list(controls_made.values())
