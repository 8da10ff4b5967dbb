"""The Code Execution sandbox: the model's Python runs in a separate process, with a time and
memory limit, no network and no access to the env object or the evaluator.

The process (:mod:`puzzlegym.agents.sandbox_child`) is a fresh ``python -I`` with a clean
environment (no API keys, no ``PYTHON*`` variables), its own temporary work directory, its
stdin/stdout as the only channel to the agent, resource limits, and an audit hook that refuses
puzzlegym imports, reads outside the Python installation and its work directory, writes outside
its work directory, sockets, processes and ctypes calls. Where Linux namespaces are available
(``unshare``) it also runs in an empty network namespace, so it has no network even below
Python. It is a guard against a model that looks where it should not, not a jail for hostile
code: run the whole harness in a container for that. (Reads are allowed inside the Python
installation, so keep run directories outside it, as the default ``runs/`` is.)

One :class:`Sandbox` holds one persistent session (names survive from run to run). A run is a
conversation: :meth:`Sandbox.start_run` sends the code, :meth:`Sandbox.next_event` waits for
the code's next request, ``("gui", action_dict)`` or ``("screenshot",)``, which the agent
answers with :meth:`reply` or :meth:`send_frame`, or for its end, ``("done", stdout, error)``.
The time limit counts only the time the code computes (not the time the agent spends
performing its GUI calls); past it, or past the memory limit, the process is killed, the run
ends with an error, and the next run starts a fresh session.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from puzzlegym.errors import ConfigError

__all__ = ["Sandbox", "SandboxLimits"]

HEADER = struct.Struct(">I")
MAX_FRAME = 16 * 1024 * 1024
STARTUP_S = 30.0


class SandboxLimits:
    """Limits of one sandbox: compute seconds per run, address-space MB, printed characters
    per run, GUI calls per run, MB a written file may reach."""

    def __init__(self, time_s: float = 30.0, memory_mb: int = 1024, output_chars: int = 4000,
                 gui_calls: int = 1000, file_mb: int = 64) -> None:
        def check(name: str, value: Any, lo: float, hi: float, integer: bool = True) -> None:
            ok = not isinstance(value, bool) and isinstance(value, int if integer else (int, float))
            if not ok or not lo <= value <= hi:
                raise ConfigError(f"{name}: expected {'an integer' if integer else 'a number'} in {lo}..{hi}, got {value!r}")

        check("code_time_limit_s", time_s, 0.1, 3600.0, integer=False)
        check("code_memory_mb", memory_mb, 128, 65536)
        check("code_output_chars", output_chars, 100, 100_000)
        check("code_gui_calls", gui_calls, 1, 100_000)
        check("code_file_mb", file_mb, 1, 4096)
        self.time_s, self.memory_mb, self.output_chars = float(time_s), memory_mb, output_chars
        self.gui_calls, self.file_mb = gui_calls, file_mb

    def to_json(self) -> dict:
        return {"time_s": self.time_s, "memory_mb": self.memory_mb, "output_chars": self.output_chars,
                "gui_calls": self.gui_calls, "file_mb": self.file_mb}


@lru_cache(maxsize=1)
def _netns_prefix() -> tuple[str, ...]:
    """``unshare`` arguments that give the child an empty network namespace, if this machine
    allows it (probed once), else ()."""
    exe = shutil.which("unshare")
    if exe is None:
        return ()
    for args in ((exe, "--net"), (exe, "--map-root-user", "--net")):
        try:
            ok = subprocess.run([*args, "true"], capture_output=True, timeout=10).returncode == 0
        except (OSError, subprocess.SubprocessError):
            ok = False
        if ok:
            return args
    return ()


def _package_dirs() -> list[str]:
    """puzzlegym's own package directories (the sandbox may not read them)."""
    import puzzlegym.envs
    import puzzlegym.solvers

    dirs = {str(Path(m.__file__).resolve().parent) for m in (puzzlegym.envs, puzzlegym.solvers)}
    dirs.add(str(Path(__file__).resolve().parents[1]))  # puzzlegym/ itself
    return sorted(dirs)


def _python_dirs() -> list[str]:
    import site
    import sysconfig

    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    dirs.update(site.getsitepackages())
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            dirs.add(path)
    return sorted(d for d in dirs if d)


class SandboxError(Exception):
    pass


class Sandbox:
    """A persistent Python session in a confined process (module docstring)."""

    def __init__(self, limits: SandboxLimits | None = None) -> None:
        self.limits = limits or SandboxLimits()
        self.proc: subprocess.Popen | None = None
        self.workdir: str | None = None
        self.isolation = "netns+audit" if _netns_prefix() else "audit"
        self.sessions = 0
        self._budget = 0.0  # compute seconds left in the current run
        self._gui_calls = 0
        self._in_run = False
        self._failure: str | None = None  # why the process was ended mid-run

    # ------------------------------------------------------------------ process
    def _spawn(self) -> None:
        self.workdir = tempfile.mkdtemp(prefix="puzzlegym-sandbox-")
        config = {
            "workdir": self.workdir,
            "readable": _python_dirs(),
            "denied": _package_dirs(),
            "memory_mb": self.limits.memory_mb,
            "cpu_backstop_s": int(max(60.0, 20 * self.limits.time_s)),
            "file_mb": self.limits.file_mb,
            "output_chars": self.limits.output_chars,
        }
        child = str(Path(__file__).with_name("sandbox_child.py"))
        prefix = _netns_prefix()
        env = {
            "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": self.workdir,
            "TMPDIR": self.workdir,
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
        }
        self.proc = subprocess.Popen(
            [*prefix, sys.executable, "-I", child, json.dumps(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=self.workdir,
            env=env,
            start_new_session=True,
            close_fds=True,
        )
        self.sessions += 1
        assert self.proc.stdin is not None
        os.set_blocking(self.proc.stdin.fileno(), False)  # a child that stops reading cannot block us
        try:
            msg = self._recv(time.monotonic() + STARTUP_S)
        except (TimeoutError, EOFError):
            msg = {}
        if msg.get("op") != "ready":
            self.kill()
            raise SandboxError("the sandbox did not start")

    def kill(self) -> None:
        """End the session's process (by its process group, which only it is in)."""
        proc, self.proc = self.proc, None
        self._in_run = False
        if proc is not None:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    proc.kill()
            proc.wait(timeout=10)
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    stream.close()
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    close = kill

    def reset(self) -> None:
        """Forget the session (the next run starts a fresh process)."""
        self.kill()

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    # ------------------------------------------------------------------ framing
    def _read_exact(self, n: int, deadline: float) -> bytes:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        chunks, got = [], 0
        while got < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                raise TimeoutError
            chunk = os.read(fd, min(n - got, 1 << 20))
            if not chunk:
                raise EOFError
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def _recv(self, deadline: float) -> dict:
        (n,) = HEADER.unpack(self._read_exact(HEADER.size, deadline))
        if n > MAX_FRAME:
            raise EOFError
        try:
            doc = json.loads(self._read_exact(n, deadline).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise EOFError from None
        if not isinstance(doc, dict):
            raise EOFError
        return doc

    def _send_bytes(self, data: bytes) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        fd = self.proc.stdin.fileno()
        view = memoryview(data)
        deadline = time.monotonic() + 60.0
        while view:
            left = deadline - time.monotonic()
            _, ready, _ = select.select([], [fd], [], max(0.0, left))
            if not ready:
                raise TimeoutError
            try:
                n = os.write(fd, view[: 1 << 16])
            except BlockingIOError:
                continue
            view = view[n:]

    def _send(self, doc: dict) -> None:
        data = json.dumps(doc).encode("utf-8")
        self._send_bytes(HEADER.pack(len(data)) + data)

    # ------------------------------------------------------------------ a run
    def start_run(self, code: str) -> None:
        if not self.alive:
            self.kill()
            self._spawn()
        self._budget = self.limits.time_s
        self._gui_calls = 0
        self._in_run = True
        self._failure = None
        try:
            self._send({"op": "exec", "code": code})
        except (OSError, TimeoutError):
            self._lost("the sandbox did not take the code")

    def next_event(self) -> tuple:
        """Wait (compute time only) for the code's next request or its end.

        Returns ``("gui", action_dict)``, ``("screenshot",)``, ``("done", stdout, error)``,
        or ``("failed", reason)`` when the process was killed (time or memory limit, crash).
        GUI calls past the per-run limit are refused here, without reaching the agent.
        """
        if not self._in_run:
            raise SandboxError("no run in progress")
        while True:
            if self.proc is None:
                self._in_run = False
                return ("failed", self._failure or "the code's process ended; a new session starts with the next run")
            t0 = time.monotonic()
            try:
                msg = self._recv(t0 + self._budget)
            except TimeoutError:
                self.kill()
                return ("failed", f"time limit: the code computed for more than {self.limits.time_s:g} s; "
                        "the session was ended (a new one starts with the next run)")
            except EOFError:
                self.kill()
                return ("failed", "the code's process ended (out of memory, or it crashed); "
                        "a new session starts with the next run")
            finally:
                self._budget -= time.monotonic() - t0
            op = msg.get("op")
            if op == "done":
                self._in_run = False
                return ("done", str(msg.get("stdout", "")), msg.get("error"))
            if op == "screenshot":
                return ("screenshot",)
            if op == "gui":
                self._gui_calls += 1
                if self._gui_calls > self.limits.gui_calls:
                    self.reply(False, error=f"GUI call limit: at most {self.limits.gui_calls} GUI calls per run")
                    continue
                action = msg.get("action")
                return ("gui", action if isinstance(action, dict) else {})
            self.kill()
            return ("failed", f"the code's process sent an unknown request {op!r}; the session was ended")

    def reply(self, ok: bool, result: dict | None = None, error: str | None = None) -> None:
        """Answer the code's GUI request (a process that cannot take it is ended; the run
        then reports that)."""
        try:
            self._send({"ok": True, "result": result or {}} if ok else {"ok": False, "error": error or "refused"})
        except (OSError, TimeoutError):
            self._lost("the code's process stopped reading its answers")

    def send_frame(self, frame: np.ndarray) -> None:
        """Answer the code's screenshot request with ``frame`` (raw RGB)."""
        h, w = frame.shape[:2]
        data = np.ascontiguousarray(frame, dtype=np.uint8).tobytes()
        try:
            self._send({"ok": True, "width": w, "height": h})
            self._send_bytes(HEADER.pack(len(data)) + data)
        except (OSError, TimeoutError):
            self._lost("the code's process stopped reading its screenshot")

    def _lost(self, reason: str) -> None:
        in_run = self._in_run
        self.kill()
        self._in_run, self._failure = in_run, reason + "; a new session starts with the next run"

    def describe(self) -> dict:
        return {**self.limits.to_json(), "isolation": self.isolation}
