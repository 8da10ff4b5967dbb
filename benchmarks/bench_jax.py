"""The JAX twins' speed beside the Python board env and gymnax's CartPole, in one run.

    .venv/bin/python benchmarks/bench_jax.py [ENV_ID ...] [--seconds S] [--rounds N]

Per registered id (or the ids given):

* ``twin``: env steps/s of ``puzzlegym.jax.make(id)`` (the catalogue, the protocol's
  budgets) at 1, 64 and 1,024 vmapped envs: ``env.step`` (automatic reset) with masked
  random actions (``env.action_mask``, a categorical draw) in one jitted ``lax.scan``,
  timed after a first call that compiles it (``compile_s``: that first call, the jit
  compile of the whole loop, per batch size); the best of ``--rounds`` timed calls counts.
* ``python``: the Python board env (``make_sb3_env(id, actions="board",
  observation="board", start="board", buttons=("restart",) [+ ("undo",)])``), steps/s of
  ``step`` + ``action_masks()`` with masked random actions for about ``--seconds``, once
  with the mask computed (``GameView.target_changes`` where the game has it) and with every
  index tried (``tried_masks()``), in alternating rounds (the best of each counts);
  ``mask_speedup`` is computed over tried (about 1 where a game computes none).
* ``ratio_1024``: the twin at 1,024 envs over the Python env's step + mask (computed). The
  goal is at least 50 on every id.

``cartpole``: gymnax's ``CartPole-v1`` through the same loop (random actions, no mask) at
the same batch sizes. Ids whose game has no twin yet are listed under ``missing`` (their
Python figures are still measured). The last line is the JSON summary.
"""

from __future__ import annotations

import argparse
import json
import time

import jax
import jax.numpy as jnp
import numpy as np

import puzzlegym  # noqa: F401  (registers the ids)
import puzzlegym.jax as pj
from puzzlegym.game.registry import env_ids, parse_env_id
from puzzlegym.game.twin import has_twin
from puzzlegym.wrappers import make_sb3_env

BATCHES = (1, 64, 1024)
STEPS = {1: 4096, 64: 512, 1024: 128}  # scan length per batch size


def rollout(env, params, n: int, steps: int, masked: bool):
    """A jitted loop: ``n`` vmapped envs, ``steps`` masked random steps; returns the summed
    reward (so nothing is optimised away)."""

    def draw(key, mask):
        return jax.random.categorical(key, jnp.where(mask, 0.0, -1e9))

    @jax.jit
    def run(key):
        keys = jax.random.split(key, n)
        _, state = jax.vmap(env.reset, in_axes=(0, None))(keys, params)

        def body(state, key):
            k1, k2 = jax.random.split(key)
            if masked:
                mask = jax.vmap(env.action_mask, in_axes=(0, None))(state, params)
                action = jax.vmap(draw)(jax.random.split(k1, n), mask)
            else:
                action = jax.random.randint(k1, (n,), 0, env.num_actions)
            _, state, reward, _, _ = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                jax.random.split(k2, n), state, action, params
            )
            return state, reward.sum()

        _, rewards = jax.lax.scan(body, state, jax.random.split(key, steps))
        return rewards.sum()

    return run


def time_twin(env, params, masked: bool, rounds: int) -> dict:
    out = {}
    for n in BATCHES:
        steps = STEPS[n]
        run = rollout(env, params, n, steps, masked)
        t = time.perf_counter()
        run(jax.random.key(0)).block_until_ready()
        compile_s = time.perf_counter() - t
        best = float("inf")
        for r in range(rounds):
            t = time.perf_counter()
            run(jax.random.key(r + 1)).block_until_ready()
            best = min(best, time.perf_counter() - t)
        out[str(n)] = {"steps_per_s": round(n * steps / best), "compile_s": round(compile_s, 2)}
    return out


def time_python(env_id: str, seconds: float, rounds: int) -> dict[str, float]:
    """Steps/s of step + mask, the mask computed and tried in alternating rounds of about
    ``seconds / rounds`` each (load drift hits both alike); the best round of each counts."""
    game, _ = parse_env_id(env_id)
    buttons = ("restart", "undo") if game.has_undo else ("restart",)
    env = make_sb3_env(env_id, actions="board", observation="board", start="board", buttons=buttons)
    kinds = {"computed": "action_masks", "tried": "tried_masks"}
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    best = dict.fromkeys(kinds, 0.0)
    try:
        for _ in range(rounds):
            for kind, method in kinds.items():
                masks = env.get_wrapper_attr(method)
                steps, spent = 0, 0.0
                while spent < seconds / rounds:
                    t = time.perf_counter()
                    for _ in range(25):
                        mask = masks()
                        action = int(rng.choice(np.flatnonzero(mask)))
                        _, _, terminated, truncated, _ = env.step(action)
                        if terminated or truncated:
                            env.reset()
                    spent += time.perf_counter() - t
                    steps += 25
                best[kind] = max(best[kind], steps / spent)
    finally:
        env.close()
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("ids", nargs="*", help="env ids (default: every registered id)")
    parser.add_argument("--seconds", type=float, default=3.0, help="per Python mask kind")
    parser.add_argument("--rounds", type=int, default=3, help="timed calls per twin batch")
    args = parser.parse_args()
    ids = args.ids or env_ids()
    print(f"devices: {jax.devices()}")
    import gymnax

    cartpole, cp_params = gymnax.make("CartPole-v1")
    cp = time_twin(cartpole, cp_params, masked=False, rounds=args.rounds)
    print("cartpole  " + "  ".join(f"{n}: {v['steps_per_s']:>11,}/s" for n, v in cp.items()))
    results, missing = {}, []
    for env_id in ids:
        game, _ = parse_env_id(env_id)
        row: dict = {}
        if has_twin(game):
            env, params = pj.make(env_id, levels="catalogue", level_bits=True)
            row["twin"] = time_twin(env, params, masked=True, rounds=args.rounds)
        else:
            missing.append(env_id)
        python = time_python(env_id, args.seconds, args.rounds)
        computed, tried = python["computed"], python["tried"]
        row["python"] = {"computed": round(computed), "tried": round(tried)}
        row["mask_speedup"] = round(computed / tried, 2)
        text = (
            f"{env_id:34s} python {computed:>7,.0f}/s "
            f"(tried {tried:>7,.0f}/s, x{computed / tried:.2f})"
        )
        if "twin" in row:
            twin = row["twin"]
            row["ratio_1024"] = round(twin["1024"]["steps_per_s"] / computed, 1)
            text += "  twin " + "  ".join(
                f"{n}: {v['steps_per_s']:>10,}/s" for n, v in twin.items()
            )
            text += f"  x{row['ratio_1024']} at 1024, compile {twin['1024']['compile_s']} s"
        else:
            text += "  twin: missing"
        print(text, flush=True)
        results[env_id] = row
    ratios = [r["ratio_1024"] for r in results.values() if "ratio_1024" in r]
    summary = {
        "ids": results,
        "cartpole": cp,
        "missing": missing,
        "min_ratio_1024": min(ratios) if ratios else None,
        "goal_ratio_1024": 50,
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
