"""A PPO run that shows it learns: the random policy's success rate, training (PPO or
sb3-contrib's MaskablePPO) with a progress bar, CSV logs and a learning curve, then the
trained policy's success rate, all measured in the same run on the same env.

A success is an episode that ends with the objective complete (``terminated`` with the
evaluator's success) within the env's budget. The random baselines are the uniform policy
over the action space and, for board actions, the uniform policy over the actions the mask
allows (the stronger one: it never bumps into a wall). The trained policy is reported
sampled (as trained) and greedy.

    from puzzlegym.rl.ppo import train_and_compare
    result = train_and_compare("LongPuzzle/MazePaint-Easy", out_dir="runs/ppo",
                               make_kwargs=dict(actions="board", buttons=(), scale="1/16",
                                                grayscale=True, start="board", level=1, budget_s=14))
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from puzzlegym.errors import ConfigError
from puzzlegym.evaluation.loop import play
from puzzlegym.jsonio import write_atomic, write_json
from puzzlegym.rl.batched import default_workers
from puzzlegym.rl.vector import make_vector_env, set_torch_threads
from puzzlegym.wrappers.sb3 import POLICIES, check_sb3_env, make_sb3_env, observation_kind

__all__ = ["ALGOS", "MAX_EPISODES", "MAX_TIMESTEPS", "play_episodes", "train_and_compare"]

ALGOS = ("maskable_ppo", "ppo")
MAX_TIMESTEPS = 10_000_000
MAX_EPISODES = 100_000


def _masks(env) -> np.ndarray | None:
    try:
        return env.get_wrapper_attr("action_masks")()
    except AttributeError:
        return None


def play_episodes(env, choose: Callable[[Any, Any], int], episodes: int, seed: int = 0) -> dict:
    """Play ``episodes`` episodes choosing actions with ``choose(obs, env)``; returns the
    success rate (episodes whose objective is complete), mean return and length."""
    wins, returns, lengths = 0, [], []
    for ep in range(episodes):
        end = play(env, lambda obs, info: choose(obs, env), seed=seed + ep)
        wins += bool(env.unwrapped.probe().success)
        returns.append(end.total_reward)
        lengths.append(end.steps)
    return {
        "episodes": episodes,
        "successes": wins,
        "success_rate": wins / episodes,
        "mean_return": float(np.mean(returns)),
        "mean_length": float(np.mean(lengths)),
    }


def random_chooser(seed: int, masked: bool) -> Callable:
    rng = np.random.default_rng(seed)

    def choose(obs, env) -> int:
        mask = _masks(env) if masked else None
        if mask is None:
            return int(rng.integers(env.action_space.n))
        return int(rng.choice(np.flatnonzero(mask)))

    return choose


def policy_chooser(model, deterministic: bool, masked: bool) -> Callable:
    def choose(obs, env) -> int:
        if masked:
            action, _ = model.predict(obs, deterministic=deterministic, action_masks=_masks(env))
        else:
            action, _ = model.predict(obs, deterministic=deterministic)
        return int(action)

    return choose


def _callbacks(total: int, progress: bool, curve: dict | None):
    from stable_baselines3.common.callbacks import BaseCallback

    class Progress(BaseCallback):
        """A tqdm bar over the training steps (SB3's own bar needs ``rich``)."""

        def _on_training_start(self) -> None:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="step", desc="training", disable=not progress, mininterval=1.0)

        def _on_step(self) -> bool:
            self.bar.update(self.training_env.num_envs)
            return True

        def _on_training_end(self) -> None:
            self.bar.close()

    class Curve(BaseCallback):
        """Every ``every`` steps, the sampled policy's success rate over ``episodes``
        episodes of a separate env; rows appended to ``curve.csv`` as they come."""

        def __init__(self, spec: dict) -> None:
            super().__init__()
            self.spec = spec
            self.rows: list[dict] = []
            self.next_at = 0

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next_at:
                self._measure()
                self.next_at = self.num_timesteps + self.spec["every"]
            return True

        def _on_training_end(self) -> None:
            if not self.rows or self.rows[-1]["timesteps"] != self.num_timesteps:
                self._measure()

        def _measure(self) -> None:
            stats = play_episodes(
                self.spec["env"], policy_chooser(self.model, False, self.spec["masked"]),
                self.spec["episodes"], self.spec["seed"],
            )
            self.rows.append({"timesteps": self.num_timesteps, "success_rate": stats["success_rate"],
                              "mean_return": round(stats["mean_return"], 4),
                              "mean_length": round(stats["mean_length"], 2)})
            path = self.spec["path"]
            lines = ["timesteps,success_rate,mean_return,mean_length"]
            lines += [f"{r['timesteps']},{r['success_rate']},{r['mean_return']},{r['mean_length']}" for r in self.rows]
            write_atomic(path, "\n".join(lines) + "\n")

    cbs: list[BaseCallback] = [Progress()]
    if curve is not None:
        cbs.append(Curve(curve))
    return cbs


def train_and_compare(
    env_id: str,
    *,
    out_dir: str | Path,
    make_kwargs: dict | None = None,
    algo: str = "maskable_ppo",
    policy: str | None = None,
    timesteps: int = 16_384,
    n_envs: int = 4,
    vec: str = "dummy",
    seed: int = 0,
    eval_episodes: int = 100,
    curve_every: int | None = None,
    curve_episodes: int = 20,
    progress: bool = True,
    torch_threads: int | None = None,
    hyperparameters: dict | None = None,
    force: bool = False,
    log: Callable[[str], None] = print,
) -> dict:
    """Measure the random policies, train, measure the trained policy; returns (and writes
    to ``out_dir/result.json``) the figures. ``out_dir`` also gets ``progress.csv`` (SB3's
    training log), ``curve.csv`` (when ``curve_every`` is set) and ``model.zip``.

    ``make_kwargs`` go to :func:`~puzzlegym.wrappers.make_sb3_env` (wrappers and env
    keywords); ``vec`` is ``"dummy"`` (envs in this process), ``"subproc"`` (a process per
    env) or ``"sb3_batched"`` (one worker process per core, each stepping its envs as a batch);
    ``hyperparameters`` go to the algorithm (``n_steps``, ``learning_rate``, ...); ``policy``
    None is the observation's (``CnnPolicy`` for pixels, ``MlpPolicy`` for the symbolic
    board: :data:`~puzzlegym.wrappers.sb3.POLICIES`)."""
    if algo not in ALGOS:
        raise ConfigError(f"algo: {algo!r} is not allowed; allowed: {', '.join(ALGOS)}")
    if vec not in ("dummy", "subproc", "sb3_batched"):
        raise ConfigError(f"vec: {vec!r} is not allowed; allowed: dummy, subproc, sb3_batched")
    for name, value, hi in (("timesteps", timesteps, MAX_TIMESTEPS), ("eval_episodes", eval_episodes, MAX_EPISODES),
                            ("curve_episodes", curve_episodes, MAX_EPISODES)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= hi:
            raise ConfigError(f"{name}: expected 1..{hi}, got {value!r}")
    if curve_every is not None and (isinstance(curve_every, bool) or not isinstance(curve_every, int) or curve_every < 1):
        raise ConfigError(f"curve_every: expected a positive number of steps or None, got {curve_every!r}")
    make_kwargs = dict(make_kwargs or {})
    masked = algo == "maskable_ppo"
    if masked and make_kwargs.get("actions", "grid") != "board":
        raise ConfigError("algo: maskable_ppo needs board actions (make_kwargs actions='board')")
    out = Path(out_dir)
    if (out / "result.json").exists():
        raise ConfigError(f"out_dir: {out} already holds a result.json; choose a new directory")
    out.mkdir(parents=True, exist_ok=True)
    busy = {"subproc": n_envs, "sb3_batched": default_workers(n_envs)}.get(vec, 0)
    threads = set_torch_threads(torch_threads, busy)

    eval_env = make_sb3_env(env_id, force=force, **make_kwargs)
    try:
        if policy is None:
            policy = POLICIES[observation_kind(eval_env)]
        check_sb3_env(eval_env, force=force, policy=policy)
    except ConfigError:
        eval_env.close()
        raise
    obs_space, act_space = eval_env.observation_space, eval_env.action_space
    assert obs_space.shape is not None and isinstance(act_space, spaces.Discrete)  # make_sb3_env's spaces
    result: dict[str, Any] = {
        "env_id": env_id, "make_kwargs": make_kwargs, "algo": algo, "policy": policy,
        "timesteps": timesteps, "n_envs": n_envs, "vec": vec, "seed": seed,
        "eval_episodes": eval_episodes, "torch_threads": threads,
        "observation_shape": list(obs_space.shape),
        "actions": int(act_space.n),
    }
    try:
        t0 = time.perf_counter()
        result["random_uniform"] = play_episodes(eval_env, random_chooser(seed, False), eval_episodes, seed + 10_000)
        if _masks(eval_env) is not None:
            result["random_masked"] = play_episodes(eval_env, random_chooser(seed, True), eval_episodes, seed + 10_000)
        log(f"random policy: success {_rate(result['random_uniform'])} (uniform)"
            + (f", {_rate(result['random_masked'])} (uniform over the mask)" if "random_masked" in result else ""))

        venv = make_vector_env(env_id, n_envs, kind=vec, seed=seed, force=force, **make_kwargs)
        from stable_baselines3.common.logger import configure
        from stable_baselines3.common.vec_env import VecMonitor

        venv = VecMonitor(venv)
        from stable_baselines3.common.on_policy_algorithm import OnPolicyAlgorithm

        Algo: Callable[..., OnPolicyAlgorithm]
        if masked:
            from sb3_contrib import MaskablePPO as Algo
        else:
            from stable_baselines3 import PPO as Algo
        model = Algo(policy, venv, seed=seed, verbose=0, **(hyperparameters or {}))
        model.set_logger(configure(str(out), ["csv"]))
        curve = None
        if curve_every is not None:
            curve = {"env": eval_env, "every": curve_every, "episodes": curve_episodes,
                     "seed": seed + 20_000, "masked": masked, "path": out / "curve.csv"}
        callbacks = _callbacks(timesteps, progress, curve)
        t1 = time.perf_counter()
        model.learn(total_timesteps=timesteps, callback=callbacks)
        train_s = time.perf_counter() - t1
        venv.close()
        if curve is not None:
            result["curve"] = callbacks[1].rows
        result["train_s"] = round(train_s, 1)
        result["train_fps"] = round(model.num_timesteps / train_s, 1)
        result["trained"] = play_episodes(eval_env, policy_chooser(model, False, masked), eval_episodes, seed + 10_000)
        result["trained_greedy"] = play_episodes(eval_env, policy_chooser(model, True, masked), eval_episodes, seed + 10_000)
        result["total_s"] = round(time.perf_counter() - t0, 1)
        write_atomic(out / "model.zip", lambda tmp: model.save(str(tmp)))
    finally:
        eval_env.close()
    log(f"trained policy: success {_rate(result['trained'])} (sampled), "
        f"{_rate(result['trained_greedy'])} (greedy) after {model.num_timesteps} steps "
        f"({result['train_s']} s, {result['train_fps']} steps/s)")
    write_json(out / "result.json", result)
    return result


def _rate(stats: dict) -> str:
    return f"{stats['success_rate']:.2f} ({stats['successes']}/{stats['episodes']})"

