"""The operating-system boundary of the Code Execution sandbox: the command line that starts
the sandboxed child (the launcher, :mod:`.launch`, which becomes bubblewrap), and the
check that it can run on this machine.

The child gets:

* an unprivileged host uid: the harness's own, or, when the harness is root,
  :data:`HOST_UID` (65534), to which the launcher drops before it starts bwrap; uid/gid 65534
  inside; so the kernel refuses it root's files (``/proc/sys``, root-only ``/proc`` files)
  and enforces ``RLIMIT_NPROC`` on its tasks;
* new user, PID, network, IPC, UTS (and, where the kernel has them, cgroup) namespaces, no
  further user namespaces inside; PID 1 of its namespace is bwrap's init, not the model's
  code, and dies with bwrap (``--die-with-parent``), which dies with the harness: the kernel
  then ends every process in the namespace, whatever the code did to its own death signal;
* an empty environment (``--clearenv`` plus a few fixed variables), its own session
  (``--new-session``);
* a root that holds only: read-only binds of the interpreter binary, the shared libraries it
  and its standard-library extensions load (found with ``ldd``), the standard library itself
  (any ``site-packages``/``dist-packages`` inside it masked by an empty read-only tmpfs), and
  numpy and Pillow (their package directories alone, at :data:`PACKAGES_DIR`) when they are
  installed; its own ``/proc``, read-only, with ``/proc/sys`` covered by an empty read-only
  tmpfs; a minimal read-only ``/dev``; the work directory (:data:`WORKDIR`), a tmpfs the
  launcher mounted bounded in bytes and inodes; everything else read-only or absent. No
  site-packages, no puzzlegym, no repository, no record directory, no ``/etc``, no shell.

:func:`require` actually starts a trivial child under that command line (once per process
per ``bwrap`` found on ``PATH``), checks its host uid and its work directory's inode bound,
and raises :class:`SandboxUnavailable`, which says how to install bubblewrap (and, for a root
harness, what the drop to uid 65534 needs), when it cannot: there is no weaker fallback.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from puzzlegym.base.errors import ConfigError
from puzzlegym.base.fields import is_int

__all__ = [
    "HOST_UID",
    "INSTALL_HINT",
    "PACKAGES_DIR",
    "ROOT_HINT",
    "SANDBOX_UID",
    "WORKDIR",
    "Runtime",
    "SandboxUnavailable",
    "bwrap_command",
    "child_pids",
    "host_ids",
    "launch_command",
    "mount_base",
    "process_uid",
    "read_child_pid",
    "require",
    "runtime",
]

INSTALL_HINT = (
    "the Code Execution setting runs the model's code under bubblewrap; install it "
    "(Debian/Ubuntu: apt-get install bubblewrap) on a kernel that allows user "
    "namespaces (sysctl kernel.unprivileged_userns_clone=1 where that switch exists)"
)
ROOT_HINT = (
    "the harness runs as root: the sandbox prepares its mounts in a private mount namespace "
    "(this needs CAP_SYS_ADMIN) and runs bubblewrap as uid 65534, never as root (this needs "
    "unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1 where that switch "
    "exists, kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu 24.04 and later); or run "
    "the harness as an ordinary user"
)
WORKDIR = "/sandbox"
PACKAGES_DIR = "/usr/lib/puzzlegym-sandbox"
SANDBOX_UID = 65534  # the uid (and gid) inside the sandbox
HOST_UID = 65534  # the host uid (and gid) it maps to when the harness is root ("nobody")
# directories the launcher may mount its staging tmpfs on (in its own mount namespace only)
BASE_CANDIDATES = ("/dev/shm", "/run", "/media", "/srv", "/mnt", "/opt")
PROBE_INODES = 64
LAUNCHER_SOURCE = Path(__file__).with_name("launch.py").read_text(encoding="utf-8")
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


def host_ids() -> tuple[int, int]:
    """The host uid and gid the sandbox runs as: :data:`HOST_UID` when the harness is root,
    else the harness's own (the sandbox's uid 65534 maps to it)."""
    if os.geteuid() == 0:
        return HOST_UID, HOST_UID
    return os.getuid(), os.getgid()


def mount_base(rt: Runtime, bwrap: str) -> str:
    """The directory the launcher mounts its staging tmpfs on, in its private mount namespace
    (:mod:`.launch`): the first of :data:`BASE_CANDIDATES` that is a real directory
    and neither holds nor lies on the way to any file the sandbox needs (nor bwrap); bwrap
    itself mounts its own tmpfs on ``/tmp``, so that is never used."""
    needed = [src for src, _ in rt.binds] + [rt.python, os.path.realpath(bwrap)]
    for base in BASE_CANDIDATES:
        if os.path.islink(base) or not os.path.isdir(base):
            continue
        if any(_under(path, [base]) or _under(base, [path]) for path in needed):
            continue
        return base
    raise SandboxUnavailable(
        f"no directory to prepare the sandbox's mounts on (tried {', '.join(BASE_CANDIDATES)})"
    )


def bwrap_command(
    bwrap: str, rt: Runtime, program: list[str], *, base: str, info_fd: int | None = None
) -> list[str]:
    """The bubblewrap command line that runs ``program`` (arguments after the interpreter) in
    the sandbox (module docstring); its binds read the launcher's staged copies under
    ``base`` (``ro<i>`` for the i-th of ``rt.binds``, ``work`` for the work directory)."""
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
        "--clearenv",
    ]
    for name, value in ENVIRONMENT.items():
        cmd += ["--setenv", name, value]
    for i, (_, dest) in enumerate(rt.binds):
        cmd += ["--ro-bind", f"{base}/ro{i}", dest]
    for mask in rt.masks:
        cmd += ["--tmpfs", mask, "--remount-ro", mask]
    for target, link in rt.symlinks:
        cmd += ["--symlink", target, link]
    cmd += [
        "--proc",
        "/proc",
        "--tmpfs",
        "/proc/sys",
        "--remount-ro",
        "/proc/sys",
        "--remount-ro",
        "/proc",
        "--dev",
        "/dev",
        "--remount-ro",
        "/dev",
        "--bind",
        f"{base}/work",
        WORKDIR,
        "--remount-ro",
        "/",
        "--chdir",
        WORKDIR,
    ]
    if info_fd is not None:
        cmd += ["--info-fd", str(info_fd)]
    return [*cmd, "--", rt.python, "-I", "-S", *program]


def launch_command(
    bwrap: str,
    rt: Runtime,
    program: list[str],
    *,
    work_bytes: int,
    work_inodes: int,
    info_fd: int | None = None,
) -> list[str]:
    """The whole command line the harness starts: the launcher (:mod:`.launch`, run
    by the interpreter in isolated mode), which prepares the mounts, drops root and becomes
    bwrap running ``program`` in the sandbox; the work directory holds at most
    ``work_bytes`` bytes and ``work_inodes`` files and directories, bounded at mount time."""
    base = mount_base(rt, bwrap)
    uid, gid = host_ids()
    config = {
        "uid": uid,
        "gid": gid,
        "base": base,
        "work_bytes": int(work_bytes),
        "work_inodes": int(work_inodes),
        "stage": [src for src, _ in rt.binds],
        "argv": bwrap_command(bwrap, rt, program, base=base, info_fd=info_fd),
    }
    return [rt.python, "-I", "-S", "-c", LAUNCHER_SOURCE, json.dumps(config)]


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
    # the child waits for its stdin to close, so its host uid can be read while it runs
    probe = (
        "import os, sys; work = os.statvfs(sys.argv[1]); "
        "print('sandbox', os.getuid(), os.getpid(), work.f_files, flush=True); sys.stdin.read()"
    )
    info_r, info_w = os.pipe()
    try:
        cmd = launch_command(
            bwrap,
            rt,
            ["-c", probe, WORKDIR],
            work_bytes=1 << 20,
            work_inodes=PROBE_INODES,
            info_fd=info_w,
        )
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd="/",
            env={"PATH": "/usr/bin:/bin"},
            pass_fds=(info_w,),
        )
    except SandboxUnavailable as exc:
        return str(exc)
    except OSError as exc:
        return f"bwrap did not run ({exc})"
    finally:
        os.close(info_w)
    try:
        deadline = time.monotonic() + PROBE_TIMEOUT_S
        init = read_child_pid(info_r, deadline)
        assert proc.stdout is not None
        first = b""  # the child's line: it runs, so its uid can be read
        while init and not first.endswith(b"\n") and len(first) < 4096:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([proc.stdout], [], [], left)[0]:
                break
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                break
            first += chunk
        uids = [process_uid(pid) for pid in (init, *child_pids(init))] if init else []
        rest, err_bytes = proc.communicate(timeout=PROBE_TIMEOUT_S)  # closes its stdin
        out = (first + rest).decode("utf-8", "replace")
        err = err_bytes.decode("utf-8", "replace")
    except (OSError, subprocess.SubprocessError) as exc:
        proc.kill()
        proc.wait()
        return f"bwrap did not run ({exc})"
    finally:
        os.close(info_r)
    if proc.returncode != 0 or out.strip() != f"sandbox {SANDBOX_UID} 2 {PROBE_INODES}":
        detail = (err or out).strip().splitlines()
        return (
            "bwrap cannot create the sandbox here "
            f"({detail[-1][:300] if detail else f'exit {proc.returncode}'})"
        )
    if len(uids) != 2 or set(uids) != {host_ids()[0]}:
        return f"the sandbox ran as host uid {uids}, not {host_ids()[0]}"
    return None


def read_child_pid(fd: int, deadline: float) -> int | None:
    """The PID (outside its namespace) of the sandbox's init, from bwrap's ``--info-fd``;
    None if bwrap closed it without one, or did not write it in time."""
    data = b""
    while len(data) < 4096:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
        try:
            doc = json.loads(data)
        except ValueError:
            continue
        pid = doc.get("child-pid") if isinstance(doc, dict) else None
        return pid if is_int(pid, 2) else None
    return None


def child_pids(pid: int) -> list[int]:
    """The PIDs whose parent is ``pid`` (from /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid:
            out.append(int(entry))
    return out


def process_uid(pid: int) -> int | None:
    """The real host uid of process ``pid`` (None if it is gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("Uid:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def require() -> str:
    """The path of a ``bwrap`` that can run the sandbox here; else :class:`SandboxUnavailable`."""
    bwrap = shutil.which("bwrap")
    problem = _probe(bwrap)
    if problem is not None:
        hint = (
            INSTALL_HINT if bwrap is None or os.geteuid() != 0 else f"{INSTALL_HINT}; {ROOT_HINT}"
        )
        raise SandboxUnavailable(f"code sandbox: {problem}; {hint}")
    assert bwrap is not None
    return bwrap
