"""RL throughput, memory and vector-env scaling, each measured in one run (ratios comparable).

    .venv/bin/python benchmarks/bench_rl.py throughput [ENV_ID ...]   # default: every registered id
    .venv/bin/python benchmarks/bench_rl.py rss [ENV_ID ...] [--steps N]
    .venv/bin/python benchmarks/bench_rl.py vector [ENV_ID ...] [--steps N] [--envs N] [--warmup N] [--full-res]
    .venv/bin/python benchmarks/bench_rl.py lockstep-bound [ENV_ID ...] [--steps N] [--envs N]

* ``throughput``: env steps/s of one pre-planned GUI action sequence (solver moves and random
  clicks, from the home screen) replayed through (a) the raw env (1280x900 observations),
  (b) the reduced-scale step: ``LowResObservation`` at 84x84 (rendered directly), and (c)
  the step of the former ``make_sb3_env`` stack: ``BlackBox`` -> ``DownscaleObservation``
  84x84 (the full frame rendered, then shrunk with Pillow). Rounds alternate the three so
  load drifts hit them alike; the best round of each counts. Prints the ratios b/a and b/c.
* ``rss``: the resident memory of one process running one env (raw 1280x900 observations,
  board actions chosen uniformly from the mask, episodes of 300 actions) after 0, 10,000,
  50,000 and 100,000 steps; each id in its own process.
* ``vector``: env steps/s at the training resolution (84x84 RGB, board actions chosen
  uniformly at random, episodes truncated after 300 actions and autoreset) on every registered
  id (or the ids given): the batched vector env (``BatchedVectorEnv``: each worker process
  hosts several envs and steps them as a batch) with ``--envs N`` envs (default 8) in 1
  worker and in 2 workers, lockstep (``step``: every step waits for the slower worker) and
  asynchronous (the ``recv``/``send`` loop of ``async_reset``: each worker's envs are stepped
  again as soon as they answer, the same per-env action plan; env steps received per second
  once every worker is in flight), after ``--warmup N`` batched steps (default 50) that are
  not timed, the best of 2 alternating rounds each, beside Gymnasium
  ``AsyncVectorEnv`` (shared memory) and SB3 ``SubprocVecEnv`` with 1 and 2 worker
  processes (one env each), all in the same run; prints the 2-vs-1 ratios (``batched_2_vs_1``
  lockstep, ``batched_async_2_vs_1`` asynchronous) and the load average, and for the lockstep
  batched env the CPU milliseconds per step of the main process and the
  busiest worker with the ratio those allow on otherwise idle cores (other users' load
  stretches wall time, not CPU time), and for the asynchronous one the CPU milliseconds of the
  main process and of all workers per ``--envs`` env steps with the ratio those allow if the
  three processes share the 2 cores without a core ever idling
  (``batched_async_2_vs_1_from_cpu_times``; like the lockstep one, CPU times have a 10 ms
  tick and the rounds replay heavy-tailed step costs, so it is an estimate, not a bound). ``--full-res`` adds AsyncVectorEnv with 2 workers at 1280x900
  (``make_sb3_env(size=(900, 1280), force=True)``) with and without shared memory.
* ``lockstep-bound``: the ``vector`` measurement's envs (``--envs``, default 8; 1000 steps by
  default) stepped in this one process with every env step timed: the 2-vs-1 ratio a lockstep
  vector env could reach with no messaging cost (one worker: the sum of a step's env costs;
  two: the larger half's), and the median, 99th percentile and slowest env step.
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
from puzzlegym.evaluation.bench import mixed_actions, timed_steps
from puzzlegym.registry import env_ids
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
    return {"env_id": env_id, "steps": steps, "seconds": round(time.perf_counter() - t0, 1),
            "rss_mib": {str(k): round(v, 1) for k, v in sorted(marks.items())},
            "widget_cache_mib": round(canvas.cached_bytes / 2**20, 1),
            "widget_cache_limit_mib": round(canvas.cache_bytes / 2**20, 1)}


def rss(env_id: str, steps: int) -> dict:
    code = f"import json, sys; sys.path.insert(0, {str(__file__.rsplit('/', 1)[0])!r}); import bench_rl; print(json.dumps(bench_rl.rss_child({env_id!r}, {steps})))"
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


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _plan(envs, n_envs: int, steps: int) -> np.ndarray:
    """Uniform random action indices (no mask round trip), one row per batched step: the
    same for the lockstep and the asynchronous loop (and ``lockstep-bound``)."""
    return _actions(envs.single_action_space.n, n_envs, steps)


def _actions(n_actions: int, n_envs: int, steps: int) -> np.ndarray:
    return np.random.default_rng(0).integers(n_actions, size=(steps, n_envs))


def _batched_rate(make, n_envs: int, workers: int, steps: int, warmup: int = 0) -> tuple[float, float, float]:
    """Lockstep steps/s, and the CPU milliseconds per batched step of the main process and of
    the busiest worker (from /proc: what the step costs whatever else runs on the machine),
    after ``warmup`` untimed steps (the first rows of the plan)."""
    envs = make(n_envs, workers)
    try:
        envs.reset(seed=0)
        plan = _plan(envs, n_envs, warmup + steps)
        for actions in plan[:warmup]:
            envs.step(actions)
        plan = plan[warmup:]
        pids = envs._pool.pids
        cpu0, main0 = [_cpu_s(p) for p in pids], time.process_time()
        t0 = time.perf_counter()
        for actions in plan:
            envs.step(actions)
        elapsed = time.perf_counter() - t0
        main_ms = (time.process_time() - main0) / steps * 1e3
        worker_ms = max(_cpu_s(p) - c for p, c in zip(pids, cpu0, strict=True)) / steps * 1e3
        return steps * n_envs / elapsed, main_ms, worker_ms
    finally:
        envs.close()


def _batched_async_rate(make, n_envs: int, workers: int, steps: int, warmup: int = 0) -> tuple[float, float, float]:
    """Env steps/s of the asynchronous loop (``recv`` the first worker to answer, ``send``
    its envs their next actions at once): env ``i``'s ``t``-th action is ``plan[t, i]`` (the
    plan of :func:`_batched_rate`, repeated if a worker gets ahead). The reset replies and
    ``warmup * n_envs`` env steps are not timed; then the steps received until ``steps *
    n_envs`` are counted, every worker in flight from the first to the last. Also the CPU
    milliseconds of the main process and of all workers together per ``n_envs`` env steps
    (one lockstep step's worth)."""
    envs = make(n_envs, workers)
    try:
        plan = _plan(envs, n_envs, warmup + steps)
        taken = np.zeros(n_envs, dtype=np.int64)  # actions sent to each env

        def loop(env_steps: int) -> int:
            done = 0
            while done < env_steps:
                ids = envs.recv()[4]["env_id"]
                envs.send(plan[taken[ids[0]] % len(plan), ids], ids)
                taken[ids] += 1
                done += len(ids)
            return done

        envs.async_reset(seed=0)
        loop(n_envs)  # the reset replies: every worker gets its first actions
        loop(warmup * n_envs)
        pids = envs._pool.pids
        cpu0, main0 = [_cpu_s(p) for p in pids], time.process_time()
        t0 = time.perf_counter()
        done = loop(steps * n_envs)
        elapsed = time.perf_counter() - t0
        per = n_envs / done * 1e3
        workers_ms = sum(_cpu_s(p) - c for p, c in zip(pids, cpu0, strict=True)) * per
        return done / elapsed, (time.process_time() - main0) * per, workers_ms
    finally:
        envs.close()  # the requests still in flight are dropped


def vector(env_id: str, steps: int = 300, n_envs: int = 8, rounds: int = 2, full_res: bool = False,
           warmup: int = 50) -> dict:
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from puzzlegym.rl.batched import BatchedVectorEnv
    from puzzlegym.wrappers import make_sb3_env

    kw = VECTOR_ENV
    load_before = os.getloadavg()[0]

    def gym_async(n, shared=True, **extra):
        return gym.vector.AsyncVectorEnv([lambda: make_sb3_env(env_id, **{**kw, **extra})] * n,
                                         shared_memory=shared, context="fork")

    def sb3_subproc(n):
        return SubprocVecEnv([lambda: make_sb3_env(env_id, **kw)] * n, start_method="fork")

    def batched(n, workers):
        return BatchedVectorEnv([functools.partial(make_sb3_env, env_id, **kw)] * n, workers=workers, context="fork")

    out = {"env_id": env_id, "steps_per_env": steps, "warmup_steps": warmup, "batched_envs": n_envs}
    best = {1: (0.0, 0.0, 0.0), 2: (0.0, 0.0, 0.0)}
    best_async = {1: (0.0, 0.0, 0.0), 2: (0.0, 0.0, 0.0)}
    for _ in range(rounds):  # alternate, so load drifts hit all four alike
        for workers in (1, 2):
            best[workers] = max(best[workers], _batched_rate(batched, n_envs, workers, steps, warmup))
        for workers in (1, 2):
            best_async[workers] = max(best_async[workers], _batched_async_rate(batched, n_envs, workers, steps, warmup))
    out["batched_1_worker_steps_per_s"] = round(best[1][0], 1)
    out["batched_2_workers_steps_per_s"] = round(best[2][0], 1)
    out["batched_2_vs_1"] = round(best[2][0] / best[1][0], 2)
    out["batched_async_1_worker_steps_per_s"] = round(best_async[1][0], 1)
    out["batched_async_2_workers_steps_per_s"] = round(best_async[2][0], 1)
    out["batched_async_2_vs_1"] = round(best_async[2][0] / best_async[1][0], 2)
    # CPU ms per batched step (main process, busiest worker) in the best rounds, and the ratio
    # they allow when nothing else competes for the 2 cores: (main + worker) time per step
    # with 1 worker over (main + busiest worker) with 2 (main waits while the workers step)
    for w in (1, 2):
        out[f"batched_{w}_cpu_ms_per_step_main_worker"] = [round(best[w][1], 3), round(best[w][2], 3)]
    out["batched_2_vs_1_from_cpu_times"] = round((best[1][1] + best[1][2]) / (best[2][1] + best[2][2]), 2)
    # async: CPU ms per 8 (--envs) env steps of the main process and of all workers together;
    # with 1 worker the two alternate, with 2 the three processes share the 2 cores: at best
    # (main + workers) / 2 per step if no core ever idles
    for w in (1, 2):
        out[f"batched_async_{w}_cpu_ms_per_{n_envs}_steps_main_workers"] = [round(best_async[w][1], 3),
                                                                            round(best_async[w][2], 3)]
    out["batched_async_2_vs_1_from_cpu_times"] = round((best_async[1][1] + best_async[1][2])
                                                  / ((best_async[2][1] + best_async[2][2]) / 2), 2)
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
            raise argparse.ArgumentTypeError(f"expected an integer in {least}..{MAX_STEPS}, got {text!r}")
        return value
    return parse


_positive = _count(1)


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
    return {"env_id": env_id, "steps_per_env": steps, "envs": n_envs,
            "env_step_ms_median_p99_max": [round(float(x) * 1e3, 3) for x in np.percentile(cost, [50, 99, 100])],
            "lockstep_2_vs_1_bound": round(float(one / two), 2)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="RL throughput, memory and vector-env scaling.")
    parser.add_argument("what", nargs="?", choices=("throughput", "rss", "vector", "lockstep-bound"),
                        default="throughput")
    parser.add_argument("env_ids", nargs="*", metavar="ENV_ID", help="default: every registered id")
    parser.add_argument("--steps", type=_positive, help="steps per measurement")
    parser.add_argument("--envs", type=_positive, default=8,
                        help="vector, lockstep-bound: envs in the batched env (default 8)")
    parser.add_argument("--warmup", type=_count(0), default=50,
                        help="vector: untimed batched steps before each batched measurement (default 50)")
    parser.add_argument("--full-res", action="store_true", help="vector: add AsyncVectorEnv at 1280x900")
    args = parser.parse_args(argv)
    known = set(env_ids())
    unknown = [e for e in args.env_ids if e not in known]
    if unknown:
        parser.error(f"ENV_ID: {', '.join(unknown)} not registered; choose from {', '.join(sorted(known))}")
    n = args.steps
    if args.what == "throughput":
        for env_id in args.env_ids or env_ids():
            print(json.dumps(throughput(env_id, n or 1500)), flush=True)
    elif args.what == "rss":
        ids = args.env_ids or ["LongPuzzle/MazePaint-Hard", "LongPuzzle/NutAndBolt-Nightmare", "LongPuzzle/BoltUnscrew-Hard"]
        for env_id in ids:
            print(json.dumps(rss(env_id, n or 100_000)), flush=True)
    elif args.what == "lockstep-bound":
        bounds = []
        for env_id in args.env_ids or env_ids():
            row = lockstep_bound(env_id, n or 1000, args.envs)
            bounds.append(row["lockstep_2_vs_1_bound"])
            print(json.dumps(row), flush=True)
        print(json.dumps({"lockstep_2_vs_1_bound_min": min(bounds), "lockstep_2_vs_1_bound_median": float(np.median(bounds)),
                          "lockstep_2_vs_1_bound_max": max(bounds), "ids": len(bounds)}), flush=True)
    else:
        ratios = []
        for env_id in args.env_ids or env_ids():
            row = vector(env_id, n or 300, args.envs, full_res=args.full_res, warmup=args.warmup)
            ratios.append((row["batched_2_vs_1"], row["batched_async_2_vs_1"]))
            print(json.dumps(row), flush=True)
        lockstep, asynchronous = np.array(ratios).T
        print(json.dumps({"batched_2_vs_1_min": float(lockstep.min()), "batched_2_vs_1_median": float(np.median(lockstep)),
                          "batched_async_2_vs_1_min": float(asynchronous.min()),
                          "batched_async_2_vs_1_median": float(np.median(asynchronous)),
                          "ids": len(ratios), "cpus": os.cpu_count()}), flush=True)


if __name__ == "__main__":
    main()
