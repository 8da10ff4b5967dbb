"""RL throughput, memory and vector-env scaling, each measured in one run (ratios comparable).

    .venv/bin/python benchmarks/bench_rl.py throughput [ENV_ID ...]   # default: every registered id
    .venv/bin/python benchmarks/bench_rl.py training [ENV_ID ...] [--steps N] [--rounds N]
    .venv/bin/python benchmarks/bench_rl.py rss [ENV_ID ...] [--steps N]
    .venv/bin/python benchmarks/bench_rl.py vector [ENV_ID ...] [--steps N] [--envs N]
        [--rounds N] [--warmup N] [--full-res]
    .venv/bin/python benchmarks/bench_rl.py lockstep-bound [ENV_ID ...] [--steps N] [--envs N]
    .venv/bin/python benchmarks/bench_rl.py wakeup [--steps N]

* ``throughput``: env steps/s of one pre-planned GUI action sequence (solver moves and random
  clicks, from the home screen) replayed through (a) the raw env (1280x900 observations),
  (b) the reduced-scale step: ``LowResObservation`` at 84x84 (rendered directly), and (c)
  the step of the former ``make_sb3_env`` stack: ``BlackBox`` -> ``DownscaleObservation``
  84x84 (the full frame rendered, then shrunk with Pillow). Rounds alternate the three so
  load drifts hit them alike; the best round of each counts. Prints the ratios b/a and b/c.
* ``training``: the training view's step (``LowResObservation(view="board")``, 84x84: the
  board's panel in the training style) beside the default 84x84 step (``LowResObservation``
  at 84x84, the whole screen), both replaying one pre-planned GUI action sequence (solver
  moves and random clicks from the home screen, ``--steps`` default 1500). The two
  alternate in ``--rounds`` rounds (default 10, the order reversed every other round) after
  one untimed warm-up replay each, so the drift hits them alike; prints each one's best
  round and the training/default ratio of the best rounds, the median of the per-round
  ratios (each round's two replays run back to back) and their range, then the ratios'
  range over the ids.
* ``rss``: the resident memory of one process running one env (raw 1280x900 observations,
  board actions chosen uniformly from the mask, episodes of 300 actions) after 0, 10,000,
  50,000 and 100,000 steps; each id in its own process.
* ``vector``: env steps/s at the training resolution (84x84 RGB, board actions chosen
  uniformly at random, episodes truncated after 300 actions and autoreset) on every registered
  id (or the ids given): the batched vector env (``BatchedVectorEnv``: each worker process
  hosts several envs and steps them as a batch) with ``--envs N`` envs (default 8) in 1
  worker and in 2 workers, lockstep (``step``: every step waits for the slower worker) and
  asynchronous (the ``recv``/``send`` loop of ``async_reset``: each worker's envs are stepped
  again as soon as they answer, the same per-env action plan). The four run *interleaved*:
  all four vector envs stay alive and take turns in ``--rounds`` rounds (default 10) of
  ``--steps / --rounds`` batched steps each (``--steps`` default 300), the order reversed
  every other round, after ``--warmup N`` untimed batched steps (default 50); each rate is
  all its env steps over all its time. This machine's CPU speed drifts (the same pure-Python
  loop takes 0.12 s to 0.26 s of CPU from one second to the next), so runs far apart in time
  are not comparable, and interleaving makes the drift hit the four alike. Beside them,
  Gymnasium ``AsyncVectorEnv`` (shared memory) and SB3 ``SubprocVecEnv`` with 1 and 2 worker
  processes (one env each), in the same run. Prints the 2-vs-1 ratios (``batched_2_vs_1``
  lockstep, ``batched_async_2_vs_1`` asynchronous, ``batched_async_2_vs_best_1`` the
  asynchronous 2 workers against the faster of the two one-worker loops: with one worker the
  async loop alternates strictly between the main process and its worker, so it can be the
  slower baseline), the same ratios round by round (min,
  median, max: the drift) and a 90% bootstrap interval of the 2-vs-1 ratios over the rounds
  (how far the drift alone moves them; the summary counts the ids whose whole interval lies
  below 1.7), the load average, and the CPU milliseconds per ``--envs`` env
  steps of the main process and of all workers together, with the ratio those would allow if
  the processes shared the 2 cores without a core ever idling (``..._from_cpu_times``; CPU
  times have a 10 ms tick, so it is an estimate, not a bound). ``--full-res`` adds
  AsyncVectorEnv with 2 workers at 1280x900 (``make_sb3_env(size=(900, 1280), force=True)``)
  with and without shared memory. ``--spin-us`` sets the batched workers' ``spin_us`` (how
  long a worker polls for its next request before it blocks; default the library's, 0 blocks
  at once).
* ``lockstep-bound``: the ``vector`` measurement's envs (``--envs``, default 8; 1000 steps by
  default) stepped in this one process with every env step timed: the 2-vs-1 ratio a lockstep
  vector env could reach with no messaging cost (one worker: the sum of a step's env costs;
  two: the larger half's), and the median, 99th percentile and slowest env step.
* ``wakeup``: what a message round trip to a worker process costs on this machine beyond the
  worker's work (``--steps`` round trips, default 2000, best of 3): answered at once, and
  answered after 1 ms of CPU, when the waiting main process's core has gone idle and the
  reply must wake it. Every reply of the vector loop pays the second kind, twice (the reply
  wakes the main process, the next actions wake the worker): a fixed cost per message that
  more envs per worker spread thinner.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import time

import gymnasium as gym
import numpy as np

import puzzlegym  # noqa: F401
from puzzlegym.bench.rates import mixed_actions, timed_steps
from puzzlegym.game.registry import env_ids
from puzzlegym.wrappers import BlackBox, BoardActions, DownscaleObservation, LowResObservation

# the envs of the vector measurements: 84x84, board actions, episodes of 300 actions
VECTOR_ENV = dict(actions="board", buttons=("restart",), size=(84, 84), start="board", budget_s=300)


def _replay(env, actions, seed: int = 0) -> float:
    """Steps per second replaying ``actions`` (resets not counted)."""
    latencies = timed_steps(env, actions, seed)
    return len(latencies) / sum(latencies)


def throughput(env_id: str, steps: int = 1500, rounds: int = 3) -> dict:
    actions = mixed_actions(env_id, steps)
    stacks = {
        "raw_full": lambda: gym.make(env_id),
        "reduced_84": lambda: LowResObservation(gym.make(env_id), size=(84, 84), fit="stretch"),
        "former_sb3_84": lambda: DownscaleObservation(BlackBox(gym.make(env_id)), size=(84, 84)),
    }
    envs = {name: make() for name, make in stacks.items()}
    best = dict.fromkeys(stacks, 0.0)
    try:
        for _ in range(rounds):
            for name, env in envs.items():
                best[name] = max(best[name], _replay(env, actions))
    finally:
        for env in envs.values():
            env.close()
    return {
        "env_id": env_id,
        "steps": sum(a is not None for a in actions),
        **{f"{k}_steps_per_s": round(v, 1) for k, v in best.items()},
        "reduced_vs_raw": round(best["reduced_84"] / best["raw_full"], 2),
        "reduced_vs_former_sb3": round(best["reduced_84"] / best["former_sb3_84"], 2),
    }


def training(env_id: str, steps: int = 1500, rounds: int = 10) -> dict:
    actions = mixed_actions(env_id, steps)
    stacks = {
        "default_84": lambda: LowResObservation(gym.make(env_id), size=(84, 84)),
        "training_84": lambda: LowResObservation(gym.make(env_id), size=(84, 84), view="board"),
    }
    envs = {name: make() for name, make in stacks.items()}
    best = dict.fromkeys(stacks, 0.0)
    per_round = []
    try:
        for env in envs.values():
            _replay(env, actions)  # warm the widget caches
        for r in range(rounds):
            order = list(envs) if r % 2 == 0 else list(envs)[::-1]
            rate = {name: _replay(envs[name], actions) for name in order}
            per_round.append(rate["training_84"] / rate["default_84"])
            for name, v in rate.items():
                best[name] = max(best[name], v)
    finally:
        for env in envs.values():
            env.close()
    return {
        "env_id": env_id,
        "steps": sum(a is not None for a in actions),
        **{f"{k}_steps_per_s": round(v, 1) for k, v in best.items()},
        "training_vs_default": round(best["training_84"] / best["default_84"], 2),
        "training_vs_default_round_median": round(float(np.median(per_round)), 2),
        "training_vs_default_round_range": [round(min(per_round), 2), round(max(per_round), 2)],
    }


def _rss_mib() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def rss_child(env_id: str, steps: int) -> dict:
    env = BoardActions(gym.make(env_id, budget_s=300))
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    marks = {0: _rss_mib()}
    checkpoints = {10_000, 50_000, steps}
    t0 = time.perf_counter()
    for i in range(1, steps + 1):
        action = rng.choice(np.flatnonzero(env.action_masks()))
        *_, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
        if i in checkpoints:
            marks[i] = _rss_mib()
    canvas = env.unwrapped.backend.canvas
    return {
        "env_id": env_id,
        "steps": steps,
        "seconds": round(time.perf_counter() - t0, 1),
        "rss_mib": {str(k): round(v, 1) for k, v in sorted(marks.items())},
        "widget_cache_mib": round(canvas.cached_bytes / 2**20, 1),
        "widget_cache_limit_mib": round(canvas.cache_bytes / 2**20, 1),
    }


def rss(env_id: str, steps: int) -> dict:
    code = (
        f"import json, sys; sys.path.insert(0, {str(__file__.rsplit('/', 1)[0])!r}); "
        f"import bench_rl; print(json.dumps(bench_rl.rss_child({env_id!r}, {steps})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _vector_rate(make, n_envs: int, steps: int, sb3: bool) -> float:
    envs = make(n_envs)
    rng = np.random.default_rng(0)
    try:
        if sb3:
            envs.seed(0)
            envs.reset()
        else:
            envs.reset(seed=0)
        n = envs.action_space.n if sb3 else envs.single_action_space.n
        plan = rng.integers(n, size=(steps, n_envs))  # uniform random indices (no mask round trip)
        t0 = time.perf_counter()
        for actions in plan:
            envs.step(actions)
        return steps * n_envs / (time.perf_counter() - t0)
    finally:
        envs.close()


def _actions(n_actions: int, n_envs: int, steps: int) -> np.ndarray:
    """Uniform random action indices (no mask round trip), one row per batched step: the
    same for the lockstep and the asynchronous loop (and ``lockstep-bound``)."""
    return np.random.default_rng(0).integers(n_actions, size=(steps, n_envs))


class _Lockstep:
    """A lockstep batched env stepped segment by segment along its action plan."""

    def __init__(self, envs, plan: np.ndarray) -> None:
        self.envs, self.plan, self.row = envs, plan, 0

    def start(self) -> None:
        self.envs.reset(seed=0)

    def run(self, batched_steps: int) -> int:
        for _ in range(batched_steps):
            self.envs.step(self.plan[self.row % len(self.plan)])
            self.row += 1
        return batched_steps * self.envs.num_envs

    def pause(self) -> None:
        pass


class _Async:
    """The asynchronous loop, segment by segment: ``recv`` the first worker to answer, ``send``
    its envs their next actions at once (env ``i``'s ``t``-th action is ``plan[t, i]``, the
    lockstep plan). A segment resumes every worker and counts the env steps received until
    it has ``batched_steps`` batched steps' worth; :meth:`pause` then collects the requests
    still in flight, untimed and uncounted (with 2 workers, up to one batch of work done in
    the timed window is dropped: the measurement leans against 2 workers, never for them)."""

    def __init__(self, envs, plan: np.ndarray) -> None:
        self.envs, self.plan = envs, plan
        self.taken = np.zeros(envs.num_envs, dtype=np.int64)  # actions sent to each env
        self.idle: list = []  # the env ids of each worker waiting for actions

    def start(self) -> None:
        self.envs.async_reset(seed=0)
        self.pause()

    def _send(self, ids) -> None:
        lo = ids[0]  # a worker's envs: consecutive ids, all with the same number of actions taken
        self.envs.send(self.plan[self.taken[lo] % len(self.plan), lo : lo + len(ids)], ids)
        self.taken[lo : lo + len(ids)] += 1

    def run(self, batched_steps: int) -> int:
        env_steps = batched_steps * self.envs.num_envs
        for ids in self.idle:
            self._send(ids)
        self.idle, done = [], 0
        while done < env_steps:
            ids = self.envs.recv()[4]["env_id"]
            done += len(ids)
            if done < env_steps:
                self._send(ids)
            else:
                self.idle.append(ids)
        return done

    def pause(self) -> None:
        while len(self.idle) < self.envs.workers:
            self.idle.append(self.envs.recv()[4]["env_id"])


def _interleaved(runners: dict, n_envs: int, steps: int, rounds: int, warmup: int) -> dict:
    """Time ``runners`` (name -> runner) in ``rounds`` interleaved segments of ``steps //
    rounds`` batched steps each (``n_envs`` env steps per batched step), the order reversed
    every other round (ABBA), after ``warmup`` untimed batched steps each. All runners stay
    alive throughout; an idle one costs no CPU. Per runner: env steps/s over all its segments,
    the rate of each round, and the CPU milliseconds per ``n_envs`` env steps of the main
    process and of all its workers together (from /proc)."""
    segment = max(1, steps // rounds)
    totals = {
        name: [0, 0.0, 0.0, 0.0] for name in runners
    }  # env steps, seconds, main CPU s, workers CPU s
    per_round = {name: [] for name in runners}
    for runner in runners.values():
        runner.start()
        runner.run(warmup)
        runner.pause()
    order = list(runners)
    for r in range(rounds):
        for name in order if r % 2 == 0 else order[::-1]:
            runner = runners[name]
            pool = runner.envs._pool
            cpu0, main0, t0 = sum(pool.cpu_seconds()), time.process_time(), time.perf_counter()
            done = runner.run(segment)
            elapsed = time.perf_counter() - t0
            main_s = time.process_time() - main0
            workers_s = sum(pool.cpu_seconds()) - cpu0
            runner.pause()
            total = totals[name]
            total[0] += done
            total[1] += elapsed
            total[2] += main_s
            total[3] += workers_s
            per_round[name].append((done, elapsed))
    out = {}
    for name, (done, elapsed, main_s, workers_s) in totals.items():
        per = n_envs / done * 1e3
        out[name] = {
            "steps_per_s": done / elapsed,
            "rounds": np.array(per_round[name]),
            "cpu_ms": (main_s * per, workers_s * per),
        }
    return out


def _ratio_interval(one: np.ndarray, two: np.ndarray, draws: int = 2000) -> list[float]:
    """The 90% bootstrap interval of the rate ratio ``two / one`` (each all its env steps over
    all its time) from the rounds of :func:`_interleaved` (rows ``(env steps, seconds)``),
    resampling whole rounds: how far the drift alone moves the ratio in such a run."""
    picks = np.random.default_rng(0).integers(len(one), size=(draws, len(one)))
    ratios = (two[picks, 0].sum(1) / two[picks, 1].sum(1)) / (
        one[picks, 0].sum(1) / one[picks, 1].sum(1)
    )
    return [round(float(x), 2) for x in np.percentile(ratios, [5, 95])]


def vector(
    env_id: str,
    steps: int = 300,
    n_envs: int = 8,
    rounds: int = 10,
    full_res: bool = False,
    warmup: int = 50,
    spin_us: float | None = None,
) -> dict:
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from puzzlegym.rl.batched import BatchedVectorEnv
    from puzzlegym.rl.workers import DEFAULT_SPIN_US
    from puzzlegym.wrappers import make_sb3_env

    kw = VECTOR_ENV
    spin_us = DEFAULT_SPIN_US if spin_us is None else spin_us
    load_before = os.getloadavg()[0]

    def gym_async(n, shared=True, **extra):
        return gym.vector.AsyncVectorEnv(
            [lambda: make_sb3_env(env_id, **{**kw, **extra})] * n,
            shared_memory=shared,
            context="fork",
        )

    def sb3_subproc(n):
        return SubprocVecEnv([lambda: make_sb3_env(env_id, **kw)] * n, start_method="fork")

    def batched(n, workers):
        return BatchedVectorEnv(
            [functools.partial(make_sb3_env, env_id, **kw)] * n,
            workers=workers,
            context="fork",
            spin_us=spin_us,
        )

    out = {
        "env_id": env_id,
        "steps_per_env": steps,
        "warmup_steps": warmup,
        "batched_envs": n_envs,
        "rounds": rounds,
        "spin_us": spin_us,
    }
    pools = {}
    try:
        for mode, runner in (("lockstep", _Lockstep), ("async", _Async)):
            for workers in (1, 2):
                envs = batched(n_envs, workers)
                pools[f"{mode}_{workers}"] = runner(
                    envs, _actions(envs.single_action_space.n, n_envs, warmup + steps)
                )
        timed = _interleaved(pools, n_envs, steps, rounds, warmup)
    finally:
        for runner in pools.values():
            runner.envs.close()
    for mode, key in (("lockstep", "batched"), ("async", "batched_async")):
        one, two = timed[f"{mode}_1"], timed[f"{mode}_2"]
        out[f"{key}_1_worker_steps_per_s"] = round(one["steps_per_s"], 1)
        out[f"{key}_2_workers_steps_per_s"] = round(two["steps_per_s"], 1)
        out[f"{key}_2_vs_1"] = round(two["steps_per_s"] / one["steps_per_s"], 2)
        # the same ratio round by round (each round's 1- and 2-worker segments run back to back)
        paired = sorted(
            (two["rounds"][:, 0] / two["rounds"][:, 1])
            / (one["rounds"][:, 0] / one["rounds"][:, 1])
        )
        out[f"{key}_2_vs_1_per_round_min_median_max"] = [
            round(paired[0], 2),
            round(float(np.median(paired)), 2),
            round(paired[-1], 2),
        ]
        out[f"{key}_2_vs_1_interval90"] = _ratio_interval(one["rounds"], two["rounds"])
        # CPU ms per --envs env steps: the main process, all workers together; and the ratio
        # they allow if the processes share the 2 cores without a core ever idling (with 1
        # worker the main process and the worker alternate)
        for w, timing in ((1, one), (2, two)):
            out[f"{key}_{w}_cpu_ms_per_{n_envs}_steps_main_workers"] = [
                round(x, 3) for x in timing["cpu_ms"]
            ]
        out[f"{key}_2_vs_1_from_cpu_times"] = round(
            sum(one["cpu_ms"]) / (sum(two["cpu_ms"]) / 2), 2
        )
    # against the faster one-worker loop: with one worker, the async loop alternates strictly
    # between the main process and the worker, so it can be the slower baseline
    best_one = max(timed["lockstep_1"]["steps_per_s"], timed["async_1"]["steps_per_s"])
    out["batched_async_2_vs_best_1"] = round(timed["async_2"]["steps_per_s"] / best_one, 2)
    for name, make, sb3 in (("async", gym_async, False), ("subproc", sb3_subproc, True)):
        one = _vector_rate(make, 1, steps, sb3)
        two = _vector_rate(make, 2, steps, sb3)
        out[f"{name}_1_worker_steps_per_s"] = round(one, 1)
        out[f"{name}_2_workers_steps_per_s"] = round(two, 1)
        out[f"{name}_2_vs_1"] = round(two / one, 2)
    if full_res:  # full-resolution observations: what shared memory saves (3.5 MB per observation)
        full = dict(size=(900, 1280), force=True)
        shared = _vector_rate(lambda n: gym_async(n, True, **full), 2, steps // 3, False)
        piped = _vector_rate(lambda n: gym_async(n, False, **full), 2, steps // 3, False)
        out["async_2_workers_full_res_shared_steps_per_s"] = round(shared, 1)
        out["async_2_workers_full_res_pipes_steps_per_s"] = round(piped, 1)
    out["load_1min"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    return out


MAX_STEPS = 1_000_000


def _count(least: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not least <= value <= MAX_STEPS:
            raise argparse.ArgumentTypeError(
                f"expected an integer in {least}..{MAX_STEPS}, got {text!r}"
            )
        return value

    return parse


_positive = _count(1)


def _spin(text: str) -> float:
    from puzzlegym.rl.workers import MAX_SPIN_US

    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= MAX_SPIN_US:
        raise argparse.ArgumentTypeError(
            f"expected microseconds in 0..{MAX_SPIN_US:g}, got {text!r}"
        )
    return value


def lockstep_bound(env_id: str, steps: int = 1000, n_envs: int = 8) -> dict:
    """The 2-vs-1 ratio a lockstep vector env could reach with no messaging cost at all: the
    ``n_envs`` envs of the ``vector`` measurement stepped in this one process (same wrappers,
    same uniform random board actions, autoreset), each env step timed; one worker would
    take the sum of a step's env costs, two workers (halves) the larger half's sum."""
    from puzzlegym.wrappers import make_sb3_env

    envs = [make_sb3_env(env_id, **VECTOR_ENV) for _ in range(n_envs)]
    try:
        for i, env in enumerate(envs):
            env.reset(seed=i)
        plan = _actions(envs[0].action_space.n, n_envs, steps)
        cost = np.zeros((steps, n_envs))
        for s, row in enumerate(plan):
            for i, (env, action) in enumerate(zip(envs, row, strict=True)):
                t0 = time.perf_counter()
                _, _, terminated, truncated, _ = env.step(action)
                if terminated or truncated:
                    env.reset()
                cost[s, i] = time.perf_counter() - t0
    finally:
        for env in envs:
            env.close()
    half = n_envs // 2
    one, two = cost.sum(), np.maximum(cost[:, :half].sum(axis=1), cost[:, half:].sum(axis=1)).sum()
    return {
        "env_id": env_id,
        "steps_per_env": steps,
        "envs": n_envs,
        "env_step_ms_median_p99_max": [
            round(float(x) * 1e3, 3) for x in np.percentile(cost, [50, 99, 100])
        ],
        "lockstep_2_vs_1_bound": round(float(one / two), 2),
    }


def _busy(seconds: float) -> None:
    """Spin on this thread's CPU clock for ``seconds`` of CPU time (a stand-in for env steps)."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def _echo(conn, work_s: float) -> None:
    """A worker that answers each message with a 2 KB reply after ``work_s`` seconds of CPU."""
    reply = b"r" * 2048
    while True:
        if conn.recv_bytes() == b"stop":
            return
        _busy(work_s)
        conn.send_bytes(reply)


def wakeup(work_ms: float = 1.0, trips: int = 2000) -> dict:
    """What one message round trip to a worker process costs beyond the worker's own work, on
    this machine: the worker answers at once (both processes stay on their cores), or only
    after ``work_ms`` ms of CPU (the main process sleeps meanwhile and its core goes idle, so
    the reply has to wake it, as in the vector loop; the worker's core idles in turn while
    the main process answers). Best of 3 rounds each (the least disturbed)."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    out = {"work_ms": work_ms, "trips": trips}
    for name, work_s in (("immediate", 0.0), ("after_work", work_ms / 1e3)):
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_echo, args=(child, work_s), daemon=True)
        proc.start()
        best = (float("inf"), 0.0)
        try:
            for _ in range(3):
                cpu0, t0 = time.process_time(), time.perf_counter()
                for _ in range(trips):
                    parent.send_bytes(b"a" * 200)
                    parent.recv_bytes()
                elapsed = time.perf_counter() - t0
                best = min(best, (elapsed, time.process_time() - cpu0))
        finally:
            parent.send_bytes(b"stop")
            proc.join(5)
        elapsed, main_cpu = best
        out[f"{name}_overhead_us_per_trip"] = round((elapsed / trips - work_s) * 1e6, 1)
        out[f"{name}_main_cpu_us_per_trip"] = round(main_cpu / trips * 1e6, 1)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="RL throughput, memory and vector-env scaling.")
    modes = ("throughput", "training", "rss", "vector", "lockstep-bound", "wakeup")
    parser.add_argument("what", nargs="?", choices=modes, default="throughput")
    parser.add_argument("env_ids", nargs="*", metavar="ENV_ID", help="default: every registered id")
    parser.add_argument("--steps", type=_positive, help="steps per measurement")
    parser.add_argument(
        "--envs",
        type=_positive,
        default=8,
        help="vector, lockstep-bound: envs in the batched env (default 8)",
    )
    parser.add_argument(
        "--warmup",
        type=_count(0),
        default=50,
        help="vector: untimed batched steps before each batched measurement (default 50)",
    )
    parser.add_argument(
        "--rounds",
        type=_count(1),
        default=10,
        help="vector: interleaved rounds the batched measurements are split into; "
        "training: alternating rounds of the two stacks (default 10)",
    )
    parser.add_argument(
        "--full-res", action="store_true", help="vector: add AsyncVectorEnv at 1280x900"
    )
    parser.add_argument(
        "--spin-us",
        type=_spin,
        default=None,
        help="vector: how long the batched workers poll before they block (default: the library's)",
    )
    args = parser.parse_args(argv)
    known = set(env_ids())
    unknown = [e for e in args.env_ids if e not in known]
    if unknown:
        parser.error(
            f"ENV_ID: {', '.join(unknown)} not registered; choose from {', '.join(sorted(known))}"
        )
    n = args.steps
    if args.what == "throughput":
        for env_id in args.env_ids or env_ids():
            print(json.dumps(throughput(env_id, n or 1500)), flush=True)
    elif args.what == "training":
        rows = []
        for env_id in args.env_ids or env_ids():
            rows.append(training(env_id, n or 1500, args.rounds))
            print(json.dumps(rows[-1]), flush=True)
        best = [row["training_vs_default"] for row in rows]
        median = [row["training_vs_default_round_median"] for row in rows]
        summary = {
            "training_vs_default_min": min(best),
            "training_vs_default_max": max(best),
            "round_median_min": min(median),
            "round_median_median": float(np.median(median)),
            "round_median_max": max(median),
            "ids": len(rows),
            "load_average": [round(v, 1) for v in os.getloadavg()],
        }
        print(json.dumps(summary), flush=True)
    elif args.what == "rss":
        ids = args.env_ids or [
            "LongPuzzle/MazePaint-Hard",
            "LongPuzzle/NutAndBolt-Nightmare",
            "LongPuzzle/BoltUnscrew-Hard",
        ]
        for env_id in ids:
            print(json.dumps(rss(env_id, n or 100_000)), flush=True)
    elif args.what == "wakeup":
        print(json.dumps(wakeup(trips=n or 2000)), flush=True)
    elif args.what == "lockstep-bound":
        bounds = []
        for env_id in args.env_ids or env_ids():
            row = lockstep_bound(env_id, n or 1000, args.envs)
            bounds.append(row["lockstep_2_vs_1_bound"])
            print(json.dumps(row), flush=True)
        print(
            json.dumps(
                {
                    "lockstep_2_vs_1_bound_min": min(bounds),
                    "lockstep_2_vs_1_bound_median": float(np.median(bounds)),
                    "lockstep_2_vs_1_bound_max": max(bounds),
                    "ids": len(bounds),
                }
            ),
            flush=True,
        )
    else:
        ratios, intervals = [], []
        for env_id in args.env_ids or env_ids():
            row = vector(
                env_id,
                n or 300,
                args.envs,
                rounds=args.rounds,
                full_res=args.full_res,
                warmup=args.warmup,
                spin_us=args.spin_us,
            )
            ratios.append(
                (
                    row["batched_2_vs_1"],
                    row["batched_async_2_vs_1"],
                    row["batched_async_2_vs_best_1"],
                )
            )
            intervals.append(row["batched_async_2_vs_1_interval90"])
            print(json.dumps(row), flush=True)
        summary = {}
        for name, column in zip(
            ("batched_2_vs_1", "batched_async_2_vs_1", "batched_async_2_vs_best_1"),
            np.array(ratios).T,
            strict=True,
        ):
            summary[f"{name}_min"], summary[f"{name}_median"] = (
                float(column.min()),
                float(np.median(column)),
            )
            summary[f"{name}_at_least_1.7"] = int((column >= 1.7).sum())
        # ids whose 2-vs-1 ratio stays below 1.7 across the run's whole bootstrap interval
        summary["batched_async_2_vs_1_interval_below_1.7"] = int(
            sum(high < 1.7 for _, high in intervals)
        )
        print(json.dumps({**summary, "ids": len(ratios), "cpus": os.cpu_count()}), flush=True)


if __name__ == "__main__":
    main()
