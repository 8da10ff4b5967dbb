"""The package layout: every module sits in one layer, no module imports a layer above its
own (function-level imports included), and docs/architecture.md names every module."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# The layers, lowest first, each the folders it is made of: a top-level package of puzzlegym,
# or the trees installed beside it (solvers/: the generic search engines, below the games;
# envs/: puzzlegym's own games, installed as puzzlegym.solvers and puzzlegym.envs). A
# module's layer is its folder's; it may import its own layer and those below. Above them
# all, the top-level modules: the public surface (facades and entry points) that nothing
# inside imports.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("base",)),
    ("screen", ("screen",)),
    ("vision", ("vision",)),
    ("game protocol", ("game",)),
    ("solvers", ("solvers",)),
    ("games", ("envs",)),
    ("suite", ("suite",)),
    ("record", ("record",)),
    ("backends", ("backends",)),
    ("env", ("env",)),
    ("wrappers", ("wrappers",)),
    ("sandbox", ("sandbox",)),
    ("agents", ("agents",)),
    ("levels", ("levels",)),
    ("authoring", ("authoring",)),
    ("report", ("report",)),
    ("evaluation", ("evaluation",)),
    ("training", ("training",)),
    ("lab", ("lab",)),
    ("service", ("service",)),
    ("bench", ("bench",)),
    ("rl", ("rl",)),
    ("jax", ("jax",)),
    ("view", ("view",)),
    ("cli", ("cli",)),
]
PUBLIC = "public surface"  # the top-level modules
MAX_TOP_LEVEL_MODULES = 12


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


def folder_of(module: str) -> str | None:
    """The top folder of a module (``puzzlegym.env.core`` -> ``env``), None for a top-level
    module of puzzlegym."""
    parts = module.split(".")
    if len(parts) == 1:
        return None  # puzzlegym itself (__init__.py)
    if len(parts) == 2 and not (ROOT / "puzzlegym" / parts[1]).is_dir():
        return None if parts[1] not in ("envs", "solvers") else parts[1]
    return parts[1]


def layer_of(module: str) -> int:
    """The rank of a module's layer, from its folder (the top-level modules rank above all)."""
    folder = folder_of(module)
    if folder is None:
        return len(LAYERS)
    for rank, (_, folders) in enumerate(LAYERS):
        if folder in folders:
            return rank
    raise AssertionError(
        f"{module}: its folder puzzlegym/{folder}/ is in no layer of tests/test_layout.py"
    )


def layer_name(rank: int) -> str:
    return LAYERS[rank][0] if rank < len(LAYERS) else PUBLIC


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


def test_every_folder_is_a_layer_and_the_top_level_is_the_public_surface():
    """Each package of puzzlegym/ is named in exactly one layer, and the top level holds at
    most a dozen modules."""
    named = [folder for _, folders in LAYERS for folder in folders]
    assert len(named) == len(set(named)), "a folder is in two layers"
    packages = {p.parent.name for p in (ROOT / "puzzlegym").glob("*/__init__.py")}
    assert packages - set(named) == set(), "packages of puzzlegym/ in no layer"
    assert set(named) - packages - {"envs", "solvers"} == set(), "layers name missing folders"
    top = sorted(p.name for p in (ROOT / "puzzlegym").glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, f"{len(top)} top-level modules: {top}"


def import_graph() -> dict[str, set[str]]:
    return {m: imported_modules(m, p) & set(MODULES) - {m} for m, p in MODULES.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_modules_import_each_other():
    assert cycles(import_graph()) == []


def test_the_cycle_check_catches_two_modules_importing_each_other():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_a_layer_above_its_own(module):
    own = layer_of(module)
    for target in sorted(imported_modules(module, MODULES[module])):
        if target not in MODULES:
            raise AssertionError(f"{module} imports {target}, which does not exist")
        assert layer_of(target) <= own, (
            f"{module} (layer {layer_name(own)}) imports {target} "
            f"(layer {layer_name(layer_of(target))})"
        )


def test_the_layer_check_catches_an_upward_import(tmp_path):
    """The check itself can fail: a screen module importing the env is reported."""
    bad = tmp_path / "render.py"
    bad.write_text("def f():\n    from puzzlegym.env import PuzzleEnv\n")
    targets = imported_modules("puzzlegym.screen.render", bad)
    assert targets == {"puzzlegym.env"}
    assert layer_of("puzzlegym.env") > layer_of("puzzlegym.screen.render")


def game_of(module: str) -> str | None:
    """The game package ``module`` belongs to (``puzzlegym.envs.<game>``), or None."""
    parts = module.split(".")
    return ".".join(parts[:3]) if parts[:2] == ["puzzlegym", "envs"] and len(parts) > 2 else None


def game_imports(modules: dict[str, Path]) -> list[str]:
    """The imports that break the game protocol's promise: a module outside a game's package
    importing it (puzzlegym reaches a game through its ``Game``, as it reaches a plugin's), or
    one game importing another."""
    found = []
    for module, path in sorted(modules.items()):
        for target in sorted(imported_modules(module, path)):
            theirs = game_of(target)
            if theirs is not None and theirs != game_of(module):
                found.append(f"{module} imports {target}")
    return found


def test_no_module_but_a_games_own_imports_a_game():
    assert game_imports(MODULES) == []


def test_the_game_import_check_catches_a_core_module_importing_a_game(tmp_path):
    bad = tmp_path / "agent.py"
    bad.write_text("from puzzlegym.envs.maze_paint.rules import Level\n")
    other = tmp_path / "rules.py"
    other.write_text("import puzzlegym.envs.nut_and_bolt.rules\n")
    modules = {"puzzlegym.agents.agent": bad, "puzzlegym.envs.maze_paint.rules": other}
    assert game_imports(modules) == [
        "puzzlegym.agents.agent imports puzzlegym.envs.maze_paint.rules",
        "puzzlegym.envs.maze_paint.rules imports puzzlegym.envs.nut_and_bolt.rules",
    ]


# ---------------------------------------------------------------------- env internals
# Above the engine layer, code reads the env through its probe and its events
# (PuzzleEnv.probe(), PuzzleEnv.subscribe): the suite and the evaluator objects, and the
# screen layout they use, are the engine's own.
INTERNAL_ATTRIBUTES = {"suite", "evaluator"}
INTERNAL_MODULES = {
    "puzzlegym.suite.shell",
    "puzzlegym.screen.layout",
    "puzzlegym.suite.view",
    "puzzlegym.record.evaluator",
}
CONSUMER = [name for name, _ in LAYERS].index("wrappers")


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
        "puzzlegym.envs, puzzlegym.base.actions\n"
        "from puzzlegym.metrics import aggregate\n"
        "from puzzlegym.env.checkpoint import Checkpoint\n"
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
