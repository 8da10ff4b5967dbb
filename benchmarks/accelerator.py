"""What an accelerator does for puzzlegym's JAX path, sized to about 10 minutes on one GPU:
twin throughput at 4k-64k envs, PPO's and the planner's training env steps/s, and one short
training run, each figure measured in this run, beside the same measure at the CPU sizes.

    .venv/bin/python benchmarks/accelerator.py                      # the whole plan
    .venv/bin/python benchmarks/accelerator.py --budget-s 120 --quick   # a CPU smoke run

Sections, in order, each skipped once ``--budget-s`` (default 540) is spent, so the run ends
within its budget on any device (what was skipped is listed):

1. ``twin``: env steps/s of every first tier's twin (and the Hard tiers') with masked random
   actions (the mask from the state) in one jitted ``lax.scan``, at 4,096, 16,384 and 65,536
   vmapped envs (``--quick``: 64 and 256), the compile apart;
2. ``ppo`` and ``planner``: whole-training env steps/s (rollout and update) on Maze Paint Easy
   and Nut and Bolt Hard at 4,096 envs (``--quick``: 64), the planner at 16 simulations a move;
3. ``train``: one short planner run on the protocol (``puzzlegym train agent=jax_planner``,
   ``--train-steps`` steps at 1,024 envs; ``--quick``: Maze Paint Easy at 2,048 steps), its
   headline figures.

Prints one line a figure and last one JSON object; with ``--out DIR`` (or ``$OUT``) writes it
to ``DIR/accelerator.json``. Nothing here is needed by the tests or the README: everything
stays CPU-first, and this script runs unchanged on a CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import jax
import jax.numpy as jnp

import puzzlegym.jax as pj
from puzzlegym.game.registry import games
from puzzlegym.game.twin import has_twin

HARD = ("LongPuzzle/NutAndBolt-Hard", "LongPuzzle/BoltUnscrew-Hard")


def first_tiers() -> list[str]:
    return [g.env_id(g.tiers[0]) for g in games().values() if has_twin(g)]


def twin_rate(env, params, n: int, steps: int) -> dict:
    """Env steps/s of ``n`` vmapped envs, ``steps`` masked random steps in one jitted scan."""

    @jax.jit
    def run(key):
        keys = jax.random.split(key, n)
        _, state = jax.vmap(env.reset, in_axes=(0, None))(keys, params)

        def body(state, key):
            k1, k2 = jax.random.split(key)
            logits = jnp.where(state.legal_action_mask, 0.0, -1e9)
            action = jax.random.categorical(k1, logits)
            _, state, reward, _, _ = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                jax.random.split(k2, n), state, action, params
            )
            return state, reward.sum()

        _, rewards = jax.lax.scan(body, state, jax.random.split(key, steps))
        return rewards.sum()

    t = time.perf_counter()
    run(jax.random.key(0)).block_until_ready()
    compile_s = time.perf_counter() - t
    t = time.perf_counter()
    run(jax.random.key(1)).block_until_ready()
    return {
        "steps_per_s": round(n * steps / (time.perf_counter() - t)),
        "compile_s": round(compile_s, 1),
    }


def learner_rate(kind: str, env, params, num_envs: int, updates: int) -> dict:
    """Training env steps/s of PPO or the planner (16 simulations), compile apart."""
    from puzzlegym.jax.planner import Planner, PlannerConfig
    from puzzlegym.jax.policy.network import NetworkSpec
    from puzzlegym.jax.ppo import PPO, PPOConfig

    spec = NetworkSpec(kind="mlp", channels=(), features=256, hidden=(256,))
    if kind == "ppo":
        learner = PPO(
            env, params, PPOConfig(num_envs=num_envs, num_steps=32, network=spec), updates
        )
    else:
        config = PlannerConfig(num_envs=num_envs, num_steps=16, num_simulations=16, network=spec)
        learner = Planner(env, params, config, updates)
    state = learner.init(jax.random.split(jax.random.PRNGKey(0), 1))
    t = time.perf_counter()
    run = learner.compile(state)
    compile_s = time.perf_counter() - t
    t = time.perf_counter()
    state, rows = run(state, updates)
    jax.block_until_ready(rows)
    seconds = time.perf_counter() - t
    steps = updates * learner.config.steps_per_update
    return {"steps_per_s": round(steps / seconds), "compile_s": round(compile_s, 1), "steps": steps}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget-s", type=float, default=540.0)
    parser.add_argument("--quick", action="store_true", help="CPU sizes (a smoke run)")
    parser.add_argument("--train-steps", type=int, default=4_000_000)
    parser.add_argument("--out", type=Path, default=os.environ.get("OUT"))
    args = parser.parse_args()
    if not 1 <= args.budget_s <= 3600:
        parser.error(f"--budget-s: expected 1..3600, got {args.budget_s}")
    if not 1 <= args.train_steps <= 10**9:
        parser.error(f"--train-steps: expected 1..10^9, got {args.train_steps}")
    start = time.perf_counter()
    device = str(jax.devices()[0])
    print(f"device: {device}", flush=True)
    out: dict = {"device": device, "quick": args.quick, "twin": {}, "learners": {}, "skipped": []}

    def left() -> float:
        return args.budget_s - (time.perf_counter() - start)

    batches = (64, 256) if args.quick else (4096, 16384, 65536)
    steps = 64 if args.quick else 256
    for env_id in [*first_tiers(), *HARD]:
        for n in batches:
            name = f"{env_id.split('/')[1]}@{n}"
            if left() < 30:
                out["skipped"].append(f"twin {name}")
                continue
            env, params = pj.make(env_id, levels="catalogue", progress=False)
            out["twin"][name] = r = twin_rate(env, params, n, steps)
            print(
                f"twin {name:32s} {r['steps_per_s']:>13,} steps/s (compile {r['compile_s']} s)",
                flush=True,
            )
    num_envs = 64 if args.quick else 4096
    for env_id in ("LongPuzzle/MazePaint-Easy", "LongPuzzle/NutAndBolt-Hard"):
        env, params = pj.make(env_id, num_levels=50, progress=False)
        for kind in ("ppo", "planner"):
            name = f"{kind} {env_id.split('/')[1]}@{num_envs}"
            if left() < 60:
                out["skipped"].append(name)
                continue
            out["learners"][name] = r = learner_rate(kind, env, params, num_envs, 4)
            print(
                f"{name:40s} {r['steps_per_s']:>11,} env steps/s of training "
                f"(compile {r['compile_s']} s)",
                flush=True,
            )
    if left() < 120 and not args.quick:
        out["skipped"].append("train")
    else:
        from puzzlegym import cli

        env_name = "maze_paint_easy" if args.quick else "nut_and_bolt_hard"
        total = 2048 if args.quick else args.train_steps
        envs = 8 if args.quick else 1024
        run_dir = Path(tempfile.mkdtemp(prefix="accelerator-")) / "run"
        t = time.perf_counter()
        code = cli.main(
            [
                "train",
                "agent=jax_planner",
                f"env={env_name}",
                f"agent.timesteps={total}",
                f"agent.planner.num_envs={envs}",
                f"agent.curve_every={total}",
                f"agent.checkpoint_every={total}",
                "agent.heldout_generated=200",
                "agent.episodes=4",
                "agent.progress=false",
                "--out",
                str(run_dir),
            ]
        )
        if code == 0:
            result = json.loads((run_dir / "result.json").read_text())
            out["train"] = {
                "env": env_name,
                "timesteps": result["timesteps"],
                "train_fps": result["train_fps"],
                "seconds": round(time.perf_counter() - t, 1),
                "generated_search": result["generated"]["trained"]["success"],
                "generated_network": result["generated"]["trained_network"]["success"],
                "generated_search_alone": result["generated"]["search_untrained"]["success"],
                "catalogue_search": result["twin"]["trained"]["test"]["success"],
            }
        else:
            out["train"] = {"error": f"puzzlegym train exited {code}"}
        print(f"train: {out['train']}", flush=True)
    out["seconds"] = round(time.perf_counter() - start, 1)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "accelerator.json").write_text(json.dumps(out, indent=2))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
