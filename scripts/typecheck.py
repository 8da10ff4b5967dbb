"""Type-check puzzlegym with mypy as one namespace: every module under the name it is imported
by, from pyproject.toml's ``[tool.setuptools] package-dir`` table (``puzzlegym/`` as
``puzzlegym``, ``envs/`` as ``puzzlegym.envs``, ``solvers/`` as ``puzzlegym.solvers``), so the
games and the search engines are checked with the core, with no links in the tree.

mypy's options come from ``[tool.mypy]``; the files checked are every ``.py`` file of the
mapped folders. Plain ``mypy`` cannot do this: it maps folders to module names by their
place on disk, and ``envs/`` is not ``puzzlegym/envs/``. Extra arguments go to mypy (e.g.
``--no-incremental``). Exit status: 0 clean, 1 errors found, 2 a usage or crash error.

    .venv/bin/python scripts/typecheck.py
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10: mypy's own dependency
    import tomli as tomllib  # type: ignore[no-redef]

from mypy import build
from mypy.errors import CompileError
from mypy.main import process_options
from mypy.modulefinder import BuildSource
from mypy.nodes import ImportFrom, MypyFile
from mypy.plugin import Plugin, ReportConfigContext

ROOT = Path(__file__).resolve().parents[1]


def namespace(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the distribution by its import name: the package-dir table applied to
    the ``.py`` files of each mapped folder (a folder of no Python, such as configs/, adds
    nothing)."""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    folders = config["tool"]["setuptools"]["package-dir"]
    out: dict[str, Path] = {}
    for name, folder in folders.items():
        base = root / folder
        nested = [root / f for n, f in folders.items() if n.startswith(name + ".")]
        for path in sorted(base.rglob("*.py")):
            if any(path.is_relative_to(inner) for inner in nested):
                continue  # mapped under its own name
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            elif not (path.parent / "__init__.py").exists():
                continue  # a folder that is no package (data, scripts)
            out[".".join([name, *parts])] = path
    return out


class Submodules(Plugin):
    """``from package import module`` made a dependency on the module when it is one of the
    namespace's: mypy asks its module finder whether ``package.module`` is a module, and the
    finder knows folders, not the package-dir table."""

    def __init__(self, options, names: set[str]) -> None:
        super().__init__(options)
        self.names = names

    def report_config_data(self, ctx: ReportConfigContext) -> str:
        return "submodules-1"  # a cache made without these dependencies is stale

    def get_additional_deps(self, file: MypyFile) -> list[tuple[int, str, int]]:
        package = file.fullname if file.is_package_init_file() else file.fullname.rpartition(".")[0]
        deps = []
        for node in file.imports:
            if not isinstance(node, ImportFrom):
                continue
            base = node.id
            if node.relative:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.relative + 1]
                base = ".".join(anchor + ([node.id] if node.id else []))
            for name, _ in node.names:
                if f"{base}.{name}" in self.names:
                    deps.append((10, f"{base}.{name}", node.line))
        return deps


def main(argv: list[str]) -> int:
    # mypy reads [tool.mypy] itself; its own file list is replaced by the namespace
    sources, options = process_options(
        [*argv, str(ROOT / "puzzlegym")], stdout=sys.stdout, stderr=sys.stderr
    )
    modules = namespace()
    sources = [BuildSource(str(path), name) for name, path in modules.items()]
    try:
        result = build.build(
            sources,
            options,
            stdout=sys.stdout,
            stderr=sys.stderr,
            extra_plugins=[Submodules(options, set(modules))],
        )
    except CompileError as exc:
        print("\n".join(exc.messages), file=sys.stderr)
        return 2
    for line in result.errors:
        print(line)
    errors = [line for line in result.errors if ": error:" in line]
    files = len({line.split(":", 1)[0] for line in errors})
    if errors:
        print(f"Found {len(errors)} errors in {files} files (checked {len(sources)} modules)")
        return 1
    print(f"Success: no issues found in {len(sources)} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
