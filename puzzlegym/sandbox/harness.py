"""The Code Execution sandbox: the model's Python runs in a separate process under the
operating system's isolation (:mod:`.isolation`: bubblewrap namespaces, read-only mounts of
the interpreter and its standard library only, a private tmpfs work directory bounded in bytes
and files, an unprivileged host uid; :mod:`.seccomp`: no new processes, no memory outside the
address-space limit), with a time and memory limit, no network, and no way to the env, the
evaluator, the harness's files, environment or memory. ``docs/sandbox.md`` states the threat
model and what is guaranteed.

Where bubblewrap is missing or cannot create namespaces, constructing a :class:`Sandbox`
raises :class:`~puzzlegym.sandbox.isolation.SandboxUnavailable` (a ConfigError saying how to
install it); there is no weaker mode.

The parent trusts nothing the child sends. Frames on the protocol stream are length-prefixed,
bounded before they are read, parsed strictly (:func:`puzzlegym.base.jsonio.loads`) and checked
against the exact shapes below, each naming its run (frames of an earlier run, which code that
forged its own "done" may still send, are dropped); anything else ends the session. The parent
keeps every count itself: GUI calls per run (screenshots included: one budget), characters of
output returned, and time. Every wait
on the child is bounded, writes to it included (a screenshot the child never reads costs it its
time limit, not the agent a blocked step).

Time: the child runs only while the parent waits for it (it is stopped with SIGSTOP whenever
the agent holds the turn: while a GUI action is performed, between runs), so a thread left
behind computes nothing after its run reported done. A run may keep the child running for at
most ``time_s`` seconds of wall time and use at most ``time_s`` seconds of CPU time (all its
threads, read from ``/proc``); past either, or past the memory limit, the process is killed,
the run ends with an error, and the next run starts a fresh session.

One :class:`Sandbox` holds one persistent session (names survive from run to run). A run is a
conversation: :meth:`Sandbox.start_run` sends the code, :meth:`Sandbox.next_event` waits for
the code's next request, ``("gui", action_dict)`` or ``("screenshot",)``, which the agent
answers with :meth:`reply` or :meth:`send_frame`, or for its end, ``("done", stdout, error)``,
or ``("failed", reason)``. :meth:`close` kills the session's PID namespace (every process in
it) and waits for it to be gone.
"""

from __future__ import annotations

import json
import os
import select
import signal
import struct
import subprocess
import time
from pathlib import Path

import numpy as np

from puzzlegym.base import jsonio
from puzzlegym.base.errors import ConfigError
from puzzlegym.base.fields import check_count, check_number, is_int
from puzzlegym.sandbox import isolation, seccomp

__all__ = ["Sandbox", "SandboxError", "SandboxLimits"]

HEADER = struct.Struct(">I")
FRAME_VALUES = 256  # JSON values in one frame from the child (a GUI call has about ten)
FRAME_DEPTH = 8
STARTUP_S = 30.0
STOP_WAIT_S = 1.0  # how long a SIGSTOP may take to reach every thread (charged to the run)
STOPPED_STATES = (b"T", b"t", b"Z", b"X")  # /proc task states of a thread that cannot run
POLL_S = 0.05  # how often the CPU time of a running child is read while waiting for it
WORK_INODES = 10_000  # files and directories the work directory may hold (its tmpfs's nr_inodes)
OPEN_FILES = 256
THREADS = 256  # tasks of the sandbox's uid in its namespace (RLIMIT_NPROC: bwrap's init included)
CHILD_SOURCE = Path(__file__).with_name("child.py").read_text(encoding="utf-8")
_CLK_TCK = os.sysconf("SC_CLK_TCK")


class SandboxLimits:
    """Limits of one sandbox: compute seconds per run, address-space MB, printed characters
    per run, GUI calls per run, MB a written file may reach."""

    def __init__(
        self,
        time_s: float = 30.0,
        memory_mb: int = 1024,
        output_chars: int = 4000,
        gui_calls: int = 1000,
        file_mb: int = 64,
    ) -> None:
        self.time_s = check_number(time_s, "code_time_limit_s", 0.1, 3600.0, ConfigError)
        self.memory_mb = check_count(memory_mb, "code_memory_mb", 128, 65536, ConfigError)
        self.output_chars = check_count(
            output_chars, "code_output_chars", 100, 100_000, ConfigError
        )
        self.gui_calls = check_count(gui_calls, "code_gui_calls", 1, 100_000, ConfigError)
        self.file_mb = check_count(file_mb, "code_file_mb", 1, 4096, ConfigError)

    def to_json(self) -> dict:
        return {
            "time_s": self.time_s,
            "memory_mb": self.memory_mb,
            "output_chars": self.output_chars,
            "gui_calls": self.gui_calls,
            "file_mb": self.file_mb,
        }


class SandboxError(Exception):
    pass


class _Timeout(Exception):
    pass


class _Violation(Exception):
    """The child broke the protocol (the message says how)."""


def _bounded(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters (the child's own note of what it dropped may
    follow a full output, within a small allowance)."""
    if len(text) <= limit + 64:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters not shown]"


class Sandbox:
    """A persistent Python session in an OS-isolated process (module docstring)."""

    isolation = "bwrap"

    def __init__(self, limits: SandboxLimits | None = None) -> None:
        self.limits = limits or SandboxLimits()
        self._bwrap = isolation.require()  # SandboxUnavailable: no sandbox, no Code Execution
        self._runtime = isolation.runtime()
        self._seccomp = seccomp.filter_program()
        self.proc: subprocess.Popen | None = None
        self.pid: int | None = None  # the sandboxed interpreter (PID 2 of its namespace)
        self.init_pid: int | None = None  # bwrap's init, PID 1 of the namespace
        self.sessions = 0
        self._budget = 0.0  # wall seconds the child may still run in the current run
        self._cpu0 = 0.0  # its CPU seconds when the run started
        self._gui_calls = 0
        self._run_id = 0  # the number of the current run (frames of other runs are dropped)
        self._in_run = False
        self._stopped = False
        self._failure: str | None = None  # why the process was ended mid-run
        # the longest frame a child may send: a done frame with two full outputs, escaped
        self._max_frame = 64 * 1024 + 24 * self.limits.output_chars

    # ------------------------------------------------------------------ process
    def _spawn(self) -> None:
        lim = self.limits
        config = {
            "workdir": isolation.WORKDIR,
            "sys_path": list(self._runtime.sys_path),
            "memory_mb": lim.memory_mb,
            "cpu_backstop_s": int(max(60.0, 20 * lim.time_s)),
            "file_mb": lim.file_mb,
            "open_files": OPEN_FILES,
            "threads": THREADS,
            "output_chars": lim.output_chars,
            "seccomp": self._seccomp.hex() if self._seccomp else None,
        }
        info_r, info_w = os.pipe()
        try:
            cmd = isolation.launch_command(
                self._bwrap,
                self._runtime,
                ["-c", CHILD_SOURCE, json.dumps(config)],
                work_bytes=lim.file_mb * 1024 * 1024,
                work_inodes=WORK_INODES,
                info_fd=info_w,
            )
            self.proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd="/",
                env={"PATH": "/usr/bin:/bin"},
                start_new_session=True,
                close_fds=True,
                pass_fds=(info_w,),
            )
        except BaseException:
            os.close(info_r)
            raise
        finally:
            os.close(info_w)
        self.sessions += 1
        self._stopped = False
        assert self.proc.stdin is not None and self.proc.stderr is not None
        os.set_blocking(
            self.proc.stdin.fileno(), False
        )  # a child that stops reading cannot block us
        os.set_blocking(self.proc.stderr.fileno(), False)
        deadline = time.monotonic() + STARTUP_S
        msg: dict = {}
        try:
            self.init_pid = isolation.read_child_pid(info_r, deadline)
            if self.init_pid is not None:
                msg = self._recv(deadline, watch_cpu=False)
                children = isolation.child_pids(self.init_pid)  # the interpreter, running now
                self.pid = children[0] if len(children) == 1 else None
        except (_Timeout, _Violation, EOFError, OSError):
            msg = {}
        finally:
            os.close(info_r)
        if msg != {"op": "ready"} or self.pid is None:
            why = self._stderr_tail()
            self.kill()
            raise SandboxError("the sandbox did not start" + (f": {why}" if why else ""))

    def _stderr_tail(self) -> str:
        if self.proc is None or self.proc.stderr is None:
            return ""
        try:
            data = os.read(self.proc.stderr.fileno(), 8192)
        except (BlockingIOError, OSError):
            return ""
        lines = data.decode("utf-8", "replace").strip().splitlines()
        return lines[-1][:300] if lines else ""

    def _signal(self, sig: int) -> None:
        """Signal the sandboxed interpreter (only while bwrap, its parent, is alive, so the pid
        cannot have been reused)."""
        if self.pid is None or self.proc is None or self.proc.poll() is not None:
            return
        try:
            os.kill(self.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def _stop(self) -> bool:
        """Stop the child and wait (at most ``STOP_WAIT_S``) until none of its threads can run;
        False when one still could then."""
        if self._stopped:
            return True
        self._signal(signal.SIGSTOP)
        self._stopped = True
        deadline = time.monotonic() + STOP_WAIT_S
        spins = 0
        while not self._all_stopped():
            if time.monotonic() >= deadline:
                return False
            spins += 1
            time.sleep(0 if spins < 100 else 0.001)  # yield first: the stop takes microseconds
        return True

    def _all_stopped(self) -> bool:
        """Whether no thread of the child can run: each is stopped (T, t) or has ended (a
        zombie or dead thread, such as a main thread ended with ``pthread_exit``)."""
        try:
            tasks = os.listdir(f"/proc/{self.pid}/task")
            for tid in tasks:
                with open(f"/proc/{self.pid}/task/{tid}/stat", "rb") as fh:
                    if fh.read().rsplit(b")", 1)[1].split()[0] not in STOPPED_STATES:
                        return False
        except (OSError, IndexError):
            return True  # gone
        return True

    def _cont(self) -> None:
        if self._stopped:
            self._signal(signal.SIGCONT)
            self._stopped = False

    def cpu_s(self) -> float | None:
        """CPU seconds the session's interpreter has used (all its threads), or None."""
        if self.pid is None:
            return None
        try:
            with open(f"/proc/{self.pid}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            return None
        return (int(fields[11]) + int(fields[12])) / _CLK_TCK  # utime, stime

    def kill(self) -> None:
        """End the session: SIGKILL to PID 1 of its namespace (the kernel ends every other
        process in it), then bwrap, and wait for both."""
        proc, self.proc = self.proc, None
        self._in_run = False
        if proc is not None:
            if proc.poll() is None:
                try:  # the namespace's init; before it is known, bwrap (its init follows it)
                    os.kill(self.init_pid or proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)  # bwrap's own session (--die-with-parent)
                except (ProcessLookupError, PermissionError):
                    proc.kill()
                proc.wait(timeout=10)
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    try:
                        stream.close()
                    except OSError:
                        pass
        self.pid = self.init_pid = None
        self._stopped = False

    close = kill

    def reset(self) -> None:
        """Forget the session (the next run starts a fresh process)."""
        self.kill()

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    # ------------------------------------------------------------------ framing
    def _over_cpu(self) -> bool:
        cpu = self.cpu_s()
        return cpu is not None and cpu - self._cpu0 > self.limits.time_s

    def _read_exact(self, n: int, deadline: float, watch_cpu: bool) -> bytes:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        chunks, got = [], 0
        while got < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Timeout("wall")
            ready, _, _ = select.select([fd], [], [], min(left, POLL_S) if watch_cpu else left)
            if not ready:
                if watch_cpu and self._over_cpu():
                    raise _Timeout("cpu")
                continue
            chunk = os.read(fd, min(n - got, 1 << 20))
            if not chunk:
                raise EOFError
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def _recv(self, deadline: float, watch_cpu: bool = True) -> dict:
        (n,) = HEADER.unpack(self._read_exact(HEADER.size, deadline, watch_cpu))
        if n > self._max_frame:
            raise _Violation(f"a frame of {n} bytes (at most {self._max_frame})")
        try:
            doc = jsonio.loads(
                self._read_exact(n, deadline, watch_cpu),
                numbers="mark",
                max_values=FRAME_VALUES,
                max_depth=FRAME_DEPTH,
            )
        except jsonio.JSONError as exc:
            raise _Violation(f"a frame that is not valid JSON ({exc})") from None
        if not isinstance(doc, dict):
            raise _Violation("a frame that is not an object")
        return doc

    def _send_bytes(self, data: bytes, deadline: float) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        fd = self.proc.stdin.fileno()
        view = memoryview(data)
        while view:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Timeout("wall")
            _, ready, _ = select.select([], [fd], [], min(left, POLL_S))
            if not ready:
                if self._over_cpu():
                    raise _Timeout("cpu")
                continue
            try:
                n = os.write(fd, view[: 1 << 16])
            except BlockingIOError:
                continue
            view = view[n:]

    def _send(self, docs: list[dict], raw: bytes | None = None, what: str = "its answer") -> None:
        """Send frames to the running child within the run's time (spent time is charged)."""
        data = b"".join(
            HEADER.pack(len(b)) + b for b in (json.dumps(d).encode("utf-8") for d in docs)
        )
        if raw is not None:
            data += HEADER.pack(len(raw)) + raw
        self._cont()
        t0 = time.monotonic()
        try:
            self._send_bytes(data, t0 + max(0.0, self._budget))
        except _Timeout as exc:
            self._lost(self._time_reason(str(exc)) + f" (it did not read {what})")
        except OSError:
            self._lost(f"the code's process stopped reading {what}")
        finally:
            self._budget -= time.monotonic() - t0

    def _time_reason(self, kind: str) -> str:
        t = self.limits.time_s
        if kind == "cpu":
            return f"time limit: the code used more than {t:g} s of CPU time"
        return f"time limit: the code ran for more than {t:g} s"

    # ------------------------------------------------------------------ a run
    def start_run(self, code: str) -> None:
        if self.alive and self.proc is not None and self.proc.stdout is not None:
            if select.select([self.proc.stdout.fileno()], [], [], 0)[0]:
                self.kill()  # frames left over from the last run: the session is out of step
        if not self.alive:
            self.kill()
            self._spawn()
        self._budget = self.limits.time_s
        self._cpu0 = self.cpu_s() or 0.0
        self._gui_calls = 0
        self._run_id += 1
        self._in_run = True
        self._failure = None
        self._send([{"op": "exec", "code": code, "run": self._run_id}], what="the code")

    def _end(self, reason: str) -> tuple:
        self.kill()
        return ("failed", reason + "; the session was ended (a new one starts with the next run)")

    def next_event(self) -> tuple:
        """Wait (the run's time only) for the code's next request or its end.

        Returns ``("gui", action_dict)``, ``("screenshot",)``, ``("done", stdout, error)``,
        or ``("failed", reason)`` when the process was killed (time or memory limit, crash,
        a broken protocol). GUI calls and screenshots past the per-run limit (one budget
        for both) are refused here, without reaching the agent.
        """
        if not self._in_run:
            raise SandboxError("no run in progress")
        while True:
            if self.proc is None:
                self._in_run = False
                return (
                    "failed",
                    self._failure
                    or "the code's process ended; a new session starts with the next run",
                )
            self._cont()
            t0 = time.monotonic()
            try:
                msg = self._recv(t0 + max(0.0, self._budget))
                event = self._event(msg)
            except _Timeout as exc:
                return self._end(self._time_reason(str(exc)))
            except EOFError:
                return self._end("the code's process ended (out of memory, or it crashed)")
            except _Violation as exc:
                return self._end(f"the code's process broke the sandbox protocol: {exc}")
            else:
                stopped = event is None or self._stop()  # the agent holds the turn now
            finally:
                self._budget -= time.monotonic() - t0  # the wait for the stop included
            if not stopped:
                return self._end(
                    f"the code's process did not stop within {STOP_WAIT_S:g} s when the agent "
                    "took its turn"
                )
            if event is None:
                continue  # a frame of an earlier run (its code went on after a forged "done")
            if event[0] == "done":
                self._in_run = False
                return event
            self._gui_calls += 1  # a GUI action or a screenshot: one budget for both
            if self._gui_calls > self.limits.gui_calls:
                self.reply(
                    False,
                    error=f"GUI call limit: at most {self.limits.gui_calls} GUI calls "
                    "(screenshots included) per run",
                )
                continue
            return event

    def _event(self, msg: dict) -> tuple | None:
        """A child frame checked against its exact shape (anything else is a violation); None
        for a well-formed frame of an earlier run."""
        run = msg.pop("run", None)
        if not is_int(run):
            raise _Violation("a frame without its run number")
        op = msg.get("op")
        keys = set(msg)
        if run != self._run_id:
            if 0 < run < self._run_id and op in ("gui", "screenshot", "done"):
                return None
            raise _Violation(f"a frame of run {run} during run {self._run_id}")
        if op == "gui" and keys == {"op", "action"} and isinstance(msg["action"], dict):
            if len(msg["action"]) > 16:
                raise _Violation("a GUI call with too many fields")
            return ("gui", msg["action"])
        if op == "screenshot" and keys == {"op"}:
            return ("screenshot",)
        if (
            op == "done"
            and keys == {"op", "stdout", "error"}
            and isinstance(msg["stdout"], str)
            and (msg["error"] is None or isinstance(msg["error"], str))
        ):
            limit = self.limits.output_chars
            error = msg["error"]
            return (
                "done",
                _bounded(msg["stdout"], limit),
                None if error is None else _bounded(error, limit),
            )
        shown = op if isinstance(op, str) and len(op) <= 20 else type(op).__name__
        raise _Violation(f"an unexpected frame (op {shown!r}, fields {sorted(map(str, keys))[:8]})")

    def reply(self, ok: bool, result: dict | None = None, error: str | None = None) -> None:
        """Answer the code's GUI request (a process that cannot take it within the run's time
        is ended; the run then reports that)."""
        if self.proc is None:
            return
        self._send(
            [
                {"ok": True, "result": result or {}}
                if ok
                else {"ok": False, "error": error or "refused"}
            ]
        )

    def send_frame(self, frame: np.ndarray) -> None:
        """Answer the code's screenshot request with ``frame`` (raw RGB)."""
        if self.proc is None:
            return
        h, w = frame.shape[:2]
        data = np.ascontiguousarray(frame, dtype=np.uint8).tobytes()
        self._send([{"ok": True, "width": w, "height": h}], raw=data, what="its screenshot")

    def _lost(self, reason: str) -> None:
        in_run = self._in_run
        self.kill()
        self._in_run, self._failure = in_run, reason + "; a new session starts with the next run"

    def describe(self) -> dict:
        return {
            **self.limits.to_json(),
            "isolation": self.isolation,
            "seccomp": self._seccomp is not None,
            "host_uid": isolation.host_ids()[0],
        }
