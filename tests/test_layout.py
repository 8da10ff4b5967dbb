"""The package layout: every module sits in one layer, no module imports a layer above its
own (function-level imports included), and docs/architecture.md names every module."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# (layer, module patterns), lowest first; a module may import its own layer and those below.
LAYERS: list[tuple[str, list[str]]] = [
    (
        "base",
        [
            "puzzlegym.errors",
            "puzzlegym.version",
            "puzzlegym.jsonio",
            "puzzlegym.actions",
            "puzzlegym.fields",
            "puzzlegym.textgrid",
            "puzzlegym.symmetry",
        ],
    ),
    (
        "screen",
        [
            "puzzlegym.screen",
            "puzzlegym.screen.input",
            "puzzlegym.screen.render",
            "puzzlegym.screen.resolution",
            "puzzlegym.screen.theme",
            "puzzlegym.screen.palette",
            "puzzlegym.screen.labels",
            "puzzlegym.screen.clock",
            "puzzlegym.screen.grid",
            "puzzlegym.screen.panel",
            "puzzlegym.screen.layout",
        ],
    ),
    (
        "protocol",
        [
            "puzzlegym.game",
            "puzzlegym.planes",
            "puzzlegym.twin",
            "puzzlegym.catalogue",
            "puzzlegym.screen.suite",
            "puzzlegym.screen.suite_view",
            "puzzlegym.levelhash",
            "puzzlegym.levelcache",
            "puzzlegym.splits",
        ],
    ),
    ("games", ["puzzlegym.envs", "puzzlegym.envs.*", "puzzlegym.solvers", "puzzlegym.solvers.*"]),
    ("registry", ["puzzlegym.registry"]),
    (
        "engine",
        [
            "puzzlegym.evaluation",
            "puzzlegym.evaluation.evaluator",
            "puzzlegym.evaluation.events",
            "puzzlegym.evaluation.outcome",
            "puzzlegym.evaluation.records",
            "puzzlegym.evaluation.metrics",
            "puzzlegym.metrics",
            "puzzlegym.backends",
            "puzzlegym.backends.*",
            "puzzlegym.checkpoint",
            "puzzlegym.probe",
            "puzzlegym.env",
        ],
    ),
    (
        "consumers",
        [
            "puzzlegym.wrappers",
            "puzzlegym.wrappers.*",
            "puzzlegym.agents",
            "puzzlegym.agents.*",
            # a JAX policy is an agent (--agent jax:PATH): its network and file sit here
            "puzzlegym.jax.network",
            "puzzlegym.jax.arrays",
            "puzzlegym.jax.policy",
        ],
    ),
    (
        "tools",
        [
            "puzzlegym.evaluation.*",
            "puzzlegym.testing",
            "puzzlegym.service",
            "puzzlegym.service.*",
            "puzzlegym.lab",
            "puzzlegym.lab.*",
            "puzzlegym.rl",
            "puzzlegym.rl.*",
            "puzzlegym.jax",
            "puzzlegym.jax.*",
        ],
    ),
    ("entry", ["puzzlegym", "puzzlegym.cli", "puzzlegym.__main__", "puzzlegym.run"]),
]


def module_files() -> dict[str, Path]:
    """Every module of the distribution by its import name (envs/ and solvers/ install as
    puzzlegym.envs and puzzlegym.solvers)."""
    out = {}
    for top, prefix in (
        ("puzzlegym", "puzzlegym"),
        ("envs", "puzzlegym.envs"),
        ("solvers", "puzzlegym.solvers"),
    ):
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = list(path.relative_to(ROOT / top).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([prefix, *parts])] = path
    return out


MODULES = module_files()


def layer_of(module: str) -> int:
    """The layer of a module: the first layer with an exact match, else the first pattern
    match (so a subpackage's named modules take precedence over its wildcard)."""
    for rank, (_, patterns) in enumerate(LAYERS):
        if module in patterns:
            return rank
    for rank, (_, patterns) in enumerate(LAYERS):
        if any(fnmatchcase(module, p) for p in patterns):
            return rank
    raise AssertionError(f"{module} is in no layer of tests/test_layout.py")


def imported_modules(module: str, path: Path) -> set[str]:
    """The puzzlegym modules ``module`` imports anywhere in its file."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:  # `from pkg import submodule` imports the submodule
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in MODULES else base)
    return {m for m in found if m == "puzzlegym" or m.startswith("puzzlegym.")}


def test_every_module_has_a_layer():
    for module in MODULES:
        layer_of(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_a_layer_above_its_own(module):
    own = layer_of(module)
    for target in sorted(imported_modules(module, MODULES[module])):
        if target not in MODULES:
            raise AssertionError(f"{module} imports {target}, which does not exist")
        assert layer_of(target) <= own, (
            f"{module} (layer {LAYERS[own][0]}) imports {target} "
            f"(layer {LAYERS[layer_of(target)][0]})"
        )


def test_the_layer_check_catches_an_upward_import(tmp_path):
    """The check itself can fail: a screen module importing the env is reported."""
    bad = tmp_path / "render.py"
    bad.write_text("def f():\n    from puzzlegym.env import PuzzleEnv\n")
    targets = imported_modules("puzzlegym.screen.render", bad)
    assert targets == {"puzzlegym.env"}
    assert layer_of("puzzlegym.env") > layer_of("puzzlegym.screen.render")


# ---------------------------------------------------------------------- env internals
# Above the engine layer, code reads the env through its probe and its events
# (PuzzleEnv.probe(), PuzzleEnv.subscribe): the suite and the evaluator objects, and the
# screen layout they use, are the engine's own.
INTERNAL_ATTRIBUTES = {"suite", "evaluator"}
INTERNAL_MODULES = {
    "puzzlegym.screen.suite",
    "puzzlegym.screen.layout",
    "puzzlegym.screen.suite_view",
    "puzzlegym.evaluation.evaluator",
}
CONSUMER = [name for name, _ in LAYERS].index("consumers")


def internals_used(module: str, path: Path) -> list[str]:
    """What ``path`` reaches of the env's internals: ``.suite``/``.evaluator`` attributes
    and imports of the suite, its layout and the evaluator."""
    found = [
        f"line {node.lineno}: .{node.attr}"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr in INTERNAL_ATTRIBUTES
    ]
    found += [f"imports {m}" for m in sorted(imported_modules(module, path) & INTERNAL_MODULES)]
    return found


def outside_modules() -> dict[str, Path]:
    """The modules above the engine layer, plus the examples and benchmarks."""
    out = {m: p for m, p in MODULES.items() if layer_of(m) >= CONSUMER}
    for folder in ("examples", "benchmarks"):
        for path in sorted((ROOT / folder).glob("*.py")):
            out[f"{folder}.{path.stem}"] = path
    return out


@pytest.mark.parametrize("module", sorted(outside_modules()))
def test_no_module_above_the_engine_reads_env_internals(module):
    assert internals_used(module, outside_modules()[module]) == [], (
        f"{module} reaches into the env's internals; read env.unwrapped.probe() or subscribe to "
        "its events"
    )


def test_the_internals_check_catches_a_walk_into_the_suite(tmp_path):
    """The check itself can fail: a wrapper reading the suite's board is reported."""
    bad = tmp_path / "restart.py"
    bad.write_text(
        "def f(env):\n    return env.unwrapped.suite.board\n"
        "from puzzlegym.screen.layout import BOARD_AREA\n"
    )
    assert internals_used("puzzlegym.wrappers.restart", bad) == [
        "line 2: .suite",
        "imports puzzlegym.screen.layout",
    ]


def architecture_tree() -> str:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- tree -->\n```\n(.*?)```", text, re.S)
    assert match, "docs/architecture.md: no ```-block after <!-- tree -->"
    return match.group(1)


def tree_paths(tree: str) -> set[str]:
    """The file paths the tree block names: indentation gives the folder nesting."""
    paths, stack = set(), []
    for line in tree.splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        name = line.split()[0]
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = "/".join([s[1].rstrip("/") for s in stack] + [name.rstrip("/")])
        if name.endswith("/"):
            stack.append((indent, name))
        paths.add(path + ("/" if name.endswith("/") else ""))
    return paths


def test_architecture_doc_matches_the_tree():
    named = tree_paths(architecture_tree())
    actual = {
        str(p.relative_to(ROOT))
        for p in (ROOT / "puzzlegym").rglob("*.py")
        if p.name not in ("__init__.py", "__main__.py")
    }
    named_files = {p for p in named if p.startswith("puzzlegym/") and p.endswith(".py")}
    assert actual - named_files == set(), "modules missing from docs/architecture.md"
    assert named_files - actual == set(), "docs/architecture.md names modules that do not exist"
    for folder in (p for p in named if p.endswith("/")):
        assert (ROOT / folder).is_dir(), f"docs/architecture.md names a missing folder {folder}"


def test_public_names_import_in_a_fresh_interpreter():
    code = (
        "import puzzlegym, puzzlegym.metrics, puzzlegym.wrappers, puzzlegym.solvers, "
        "puzzlegym.envs, puzzlegym.actions\n"
        "from puzzlegym.metrics import aggregate\n"
        "from puzzlegym.checkpoint import Checkpoint\n"
        "from puzzlegym.wrappers import BlackBox, TextChannel, make_sb3_env\n"
        "import gymnasium as gym\n"
        "assert 'LongPuzzle/MazePaint-Easy' in gym.registry\n"
        "assert Checkpoint is puzzlegym.Checkpoint\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_a_built_wheel_carries_every_data_file(tmp_path):
    """A normal (non-editable) install has the fonts, the browser page, every catalogue, rule
    card and Hydra config: the wheel holds every data file of the source tree."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    import zipfile

    (wheel,) = tmp_path.glob("puzzlegym-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = set()
    for top, prefix in (
        ("puzzlegym", "puzzlegym"),
        ("envs", "puzzlegym/envs"),
        ("solvers", "puzzlegym/solvers"),
        ("configs", "puzzlegym/configs"),
    ):
        for path in (ROOT / top).rglob("*"):
            if path.is_file() and path.suffix in (
                ".py",
                ".json",
                ".md",
                ".ttf",
                ".txt",
                ".html",
                ".js",
                ".yaml",
            ):
                expected.add(f"{prefix}/{path.relative_to(ROOT / top).as_posix()}")
    expected = {n for n in expected if "__pycache__" not in n}
    assert expected - names == set()
