"""The operating-system boundary of the Code Execution sandbox: the bubblewrap (``bwrap``)
command line that runs the sandboxed child, and the check that it can run on this machine.

The child gets:

* new user, PID, network, IPC, UTS (and, where the kernel has them, cgroup) namespaces, no
  further user namespaces inside; uid/gid 65534 inside; the command as PID 1 of its namespace
  (``--as-pid-1``: when it ends, the kernel ends every other process in the namespace);
* an empty environment (``--clearenv`` plus a few fixed variables), its own session
  (``--new-session``), and death with its parent (``--die-with-parent``);
* a root that holds only: read-only binds of the interpreter binary, the shared libraries it
  and its standard-library extensions load (found with ``ldd``), the standard library itself
  (any ``site-packages``/``dist-packages`` inside it masked by an empty read-only tmpfs), and
  numpy and Pillow (their package directories alone, at :data:`PACKAGES_DIR`) when they are
  installed; its own ``/proc`` and a minimal ``/dev``, both read-only; a private tmpfs work
  directory (:data:`WORKDIR`) of bounded size; everything else read-only or absent. No
  site-packages, no puzzlegym, no repository, no record directory, no ``/etc``, no shell.

:func:`require` actually starts a trivial child under that command line (once per process
per ``bwrap`` found on ``PATH``) and raises :class:`SandboxUnavailable`, which says how to
install bubblewrap, when it cannot: there is no weaker fallback.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from puzzlegym.base.errors import ConfigError

__all__ = [
    "INSTALL_HINT",
    "PACKAGES_DIR",
    "SANDBOX_UID",
    "WORKDIR",
    "Runtime",
    "SandboxUnavailable",
    "bwrap_command",
    "require",
    "runtime",
]

INSTALL_HINT = (
    "the Code Execution setting runs the model's code under bubblewrap; install it "
    "(Debian/Ubuntu: apt-get install bubblewrap) on a kernel that allows user "
    "namespaces (sysctl kernel.unprivileged_userns_clone=1 where that switch exists)"
)
WORKDIR = "/sandbox"
PACKAGES_DIR = "/usr/lib/puzzlegym-sandbox"
SANDBOX_UID = 65534
# packages the model's code may import besides the standard library, with the directories of
# shared libraries their wheels ship beside them
SANDBOX_PACKAGES = {"numpy": ("numpy.libs",), "PIL": ("pillow.libs", "Pillow.libs")}
ENVIRONMENT = {
    "PATH": "/nonexistent",
    "LANG": "C.UTF-8",
    "HOME": WORKDIR,
    "TMPDIR": WORKDIR,
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}
PROBE_TIMEOUT_S = 30.0


class SandboxUnavailable(ConfigError):
    """The OS sandbox cannot run here (the message says why and how to install it)."""


@dataclass(frozen=True)
class Runtime:
    """What the child needs from this machine: the interpreter, its module search path inside
    the sandbox, read-only binds (source, destination), symlinks (target, link) and the
    directories masked by an empty tmpfs."""

    python: str
    sys_path: tuple[str, ...]
    binds: tuple[tuple[str, str], ...]
    symlinks: tuple[tuple[str, str], ...]
    masks: tuple[str, ...]

    def readable(self) -> list[str]:
        """Every directory or file the child may read (its audit hook's list)."""
        dirs = {dest for _, dest in self.binds}
        if PACKAGES_DIR in self.sys_path:
            dirs.add(PACKAGES_DIR)  # listed by the import system
        return sorted(dirs)


def _under(path: str, roots: set[str] | list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


class _Layout:
    """Binds and symlinks that reproduce host paths inside the sandbox (each symlink on the
    way to a file recreated, the file itself bound at its real path)."""

    def __init__(self) -> None:
        self.binds: dict[str, str] = {}
        self.symlinks: dict[str, str] = {}

    def bind(self, src: str, dest: str) -> None:
        self.binds[dest] = src

    def add(self, path: str, depth: int = 0) -> None:
        """Make ``path`` (absolute, maybe through symlinks) resolve inside the sandbox."""
        if depth > 40:
            raise SandboxUnavailable(f"too many symlinks resolving {path}")
        cur = "/"
        parts = Path(os.path.normpath(path)).parts[1:]
        for i, comp in enumerate(parts):
            nxt = os.path.join(cur, comp)
            if os.path.islink(nxt):
                target = os.readlink(nxt)
                if not _under(nxt, list(self.binds)):
                    self.symlinks[nxt] = target
                rest = os.path.join(*parts[i + 1 :]) if i + 1 < len(parts) else ""
                resolved = os.path.normpath(os.path.join(cur, target, rest))
                self.add(resolved, depth + 1)
                return
            cur = nxt
        if os.path.exists(cur) and not _under(cur, list(self.binds)):
            self.bind(cur, cur)


def _ldd(files: list[str]) -> set[str]:
    """The shared libraries (as the loader names them) that ``files`` need."""
    exe = shutil.which("ldd")
    if exe is None or not files:
        return set()
    libs: set[str] = set()
    for start in range(0, len(files), 200):
        proc = subprocess.run(
            [exe, *files[start : start + 200]],
            capture_output=True,
            text=True,
            timeout=120,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},
        )
        for line in proc.stdout.splitlines():
            line = line.strip()
            if "=>" in line:
                target = line.split("=>", 1)[1].strip().split(" (", 1)[0].strip()
            else:
                target = line.split(" (", 1)[0].strip()
            if target.startswith("/") and os.path.exists(target):
                libs.add(target)
    return libs


@lru_cache(maxsize=1)
def runtime() -> Runtime:
    """What the child needs (module docstring), found once per process."""
    python = os.path.realpath(sys.executable)
    probe = subprocess.run(
        [python, "-I", "-S", "-c", "import sys, json; print(json.dumps(sys.path))"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"LC_ALL": "C"},
    )
    if probe.returncode != 0:
        raise SandboxUnavailable(f"the interpreter {python} does not start in isolated mode")
    stdlib = [p for p in json.loads(probe.stdout) if p and os.path.exists(p)]
    layout = _Layout()
    masks: list[str] = []
    for path in sorted(stdlib, key=len):
        real = os.path.realpath(path)
        if not _under(real, list(layout.binds)):
            layout.bind(real, real)
        if os.path.isdir(real):
            masks += [
                os.path.join(real, name)
                for name in ("site-packages", "dist-packages")
                if os.path.isdir(os.path.join(real, name))
            ]
    packages: list[tuple[str, str]] = []
    for name, lib_dirs in SANDBOX_PACKAGES.items():
        try:
            module = __import__(name)
        except ImportError:
            continue
        if module.__file__ is None:  # a namespace package: no folder of its own to bind
            continue
        pkg = Path(module.__file__).resolve().parent
        packages.append((str(pkg), f"{PACKAGES_DIR}/{pkg.name}"))
        for lib_dir in lib_dirs:
            if (pkg.parent / lib_dir).is_dir():
                packages.append((str(pkg.parent / lib_dir), f"{PACKAGES_DIR}/{lib_dir}"))
    for src, dest in packages:
        layout.bind(src, dest)
    elf = [python]
    for root in [p for p in stdlib if os.path.isdir(p)] + [src for src, _ in packages]:
        if _under(root, masks):
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if not _under(os.path.join(dirpath, d), masks)]
            elf += [
                os.path.join(dirpath, f) for f in filenames if ".so" in f and not f.endswith(".py")
            ]
    layout.add(python)
    for lib in sorted(_ldd(elf)):
        if not any(_under(os.path.realpath(lib), [src]) for src, _ in packages):
            layout.add(lib)
    binds = tuple(sorted(((src, dest) for dest, src in layout.binds.items()), key=lambda b: b[1]))
    return Runtime(
        python=python,
        sys_path=(*stdlib, PACKAGES_DIR) if packages else tuple(stdlib),
        binds=binds,
        symlinks=tuple(sorted((t, link) for link, t in layout.symlinks.items())),
        masks=tuple(masks),
    )


def bwrap_command(
    bwrap: str, rt: Runtime, program: list[str], *, work_bytes: int, info_fd: int | None = None
) -> list[str]:
    """The whole command line that runs ``program`` (arguments after the interpreter) in the
    sandbox (module docstring); ``work_bytes`` bounds the work directory's tmpfs."""
    cmd = [
        bwrap,
        "--unshare-user",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--disable-userns",
        "--uid",
        str(SANDBOX_UID),
        "--gid",
        str(SANDBOX_UID),
        "--hostname",
        "sandbox",
        "--die-with-parent",
        "--new-session",
        "--as-pid-1",
        "--clearenv",
    ]
    for name, value in ENVIRONMENT.items():
        cmd += ["--setenv", name, value]
    for src, dest in rt.binds:
        cmd += ["--ro-bind", src, dest]
    for mask in rt.masks:
        cmd += ["--tmpfs", mask, "--remount-ro", mask]
    for target, link in rt.symlinks:
        cmd += ["--symlink", target, link]
    cmd += [
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--remount-ro",
        "/dev",
        "--size",
        str(int(work_bytes)),
        "--perms",
        "0700",
        "--tmpfs",
        WORKDIR,
        "--remount-ro",
        "/",
        "--chdir",
        WORKDIR,
    ]
    if info_fd is not None:
        cmd += ["--info-fd", str(info_fd)]
    return [*cmd, "--", rt.python, "-I", "-S", *program]


@lru_cache(maxsize=8)
def _probe(bwrap: str | None) -> str | None:
    """None if a trivial child runs under the sandbox's command line, else why not."""
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    try:
        rt = runtime()
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        return f"the interpreter's files could not be listed ({exc})"
    except SandboxUnavailable as exc:
        return str(exc)
    cmd = bwrap_command(
        bwrap,
        rt,
        ["-c", "import os; print('sandbox', os.getuid(), os.getpid())"],
        work_bytes=1 << 20,
    )
    try:
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
            cwd="/",
            env={"PATH": "/usr/bin:/bin"},
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bwrap did not run ({exc})"
    if proc.returncode != 0 or proc.stdout.strip() != f"sandbox {SANDBOX_UID} 1":
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        return (
            "bwrap cannot create the sandbox here "
            f"({detail[-1][:300] if detail else f'exit {proc.returncode}'})"
        )
    return None


def require() -> str:
    """The path of a ``bwrap`` that can run the sandbox here; else :class:`SandboxUnavailable`."""
    bwrap = shutil.which("bwrap")
    problem = _probe(bwrap)
    if problem is not None:
        raise SandboxUnavailable(f"code sandbox: {problem}; {INSTALL_HINT}")
    assert bwrap is not None
    return bwrap
