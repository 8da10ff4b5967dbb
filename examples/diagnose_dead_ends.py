"""Diagnose dead ends end to end (the paper's RQ2): find certified dead-end checkpoints and
their solvable controls, take over at each with a scripted agent under the three state-hint
conditions, and print the outcome table.

1. D/N checkpoints: on Bolt Unscrew Hard, one fatal move off the solver's path (most of these
   boards still show free holes: the dead end hides); on Nut and Bolt Hard, seeded random
   play until the certifier proves the board lost. Each D has an N control on a verified
   solution path at the same level and depth. Files go to ``<out>/checkpoints``
   (``puzzlegym checkpoints list <out>/checkpoints`` shows them).
2. Each checkpoint is restored and handed over to :class:`puzzlegym.agents.ScriptedAgent`
   (greedy by visible progress; it recovers when the text channel says the board is lost)
   under A (no hint), B (the board's state) and C (B plus the restart control's name); N
   under A and B. Continuations are records under ``<out>/rq2``.
3. The A/B/C table: timely restart (10 actions, 120 s), verified recovery, same-level win
   (300 s), recurrence of a new dead end after recovery. ``puzzlegym report <out>`` writes
   the same table as ``rq2.md``.

    python examples/diagnose_dead_ends.py
    python examples/diagnose_dead_ends.py --out runs/rq2 --window-s 300
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from puzzlegym import lab
from puzzlegym.lab import rq2

SOURCES = (
    # (env id, level, finder, count): Bolt Unscrew Hard off the solution path, Nut and Bolt Hard
    # by random play
    ("LongPuzzle/BoltUnscrew-Hard", 1, "solution", 1),
    ("LongPuzzle/BoltUnscrew-Hard", 3, "solution", 1),
    ("LongPuzzle/NutAndBolt-Hard", 1, "random", 2),
)


def cell(k: int | None, n: int) -> str:
    if k is None:
        return "—"
    return f"{k}/{n} ({100.0 * k / n:.0f}%)" if n else f"{k}/{n}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="output directory (default: a temp dir)")
    parser.add_argument(
        "--window-s", type=float, default=300.0, help="the recovery and win window (s)"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.out or tmp)
        ckpt_dir = out / "checkpoints"
        for env_id, level, source, count in SOURCES:
            finder = lab.find_on_solution if source == "solution" else lab.find_in_random_play
            found = finder(env_id, level, count=count, seed=args.seed)
            for ckpt in found:
                lab.save(ckpt, ckpt_dir)
            classes = [c.certificate["class"] for c in found]
            hidden = sum(
                1 for c in found if c.certificate["class"] == "D" and not c.certificate["visible"]
            )
            print(
                f"{env_id} level {level} ({source}): {classes.count('D')} D "
                f"({hidden} with legal moves left), "
                f"{classes.count('N')} N"
            )
        paths = sorted(ckpt_dir.glob("*.ckpt.json"))
        limits = rq2.Limits(window_s=args.window_s)
        docs = rq2.run_rq2(paths, out, "scripted", limits=limits)
        rows = rq2.aggregate(docs)

        print()
        print(
            f"RQ2 outcomes, scripted agent, {len(paths)} checkpoints, {len(docs)} continuations "
            f"(timely: {limits.timely_actions} actions and {limits.timely_s:.0f} s; "
            f"window {limits.window_s:.0f} s)"
        )
        header = (
            "Game",
            "State",
            "Cond",
            "n",
            "Timely restart",
            "Verified recovery",
            "Same-level win",
            "Recurrence",
        )
        widths = (12, 5, 4, 3, 15, 17, 15, 12)
        print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
        for r in rows:
            values = (
                r["game"],
                r["class"],
                r["condition"],
                str(r["n"]),
                cell(r["timely_restart"], r["n"]),
                cell(r["verified_recovery"], r["n"]),
                cell(r["same_level_win"], r["n"]),
                "—"
                if r["verified_recovery"] is None
                else cell(r["recurrence"], r["verified_recovery"]),
            )
            print("  ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)))
        print()
        print(
            json.dumps(
                {
                    "checkpoints": len(paths),
                    "continuations": len(docs),
                    "outcomes": rows,
                    "wall_s": round(time.perf_counter() - t0, 1),
                }
            )
        )
        if args.out:
            print(f"records: {out / 'rq2'}; table: puzzlegym report {out}")


if __name__ == "__main__":
    main()
