"""The program the Code Execution sandbox runs (standard library only; it never imports
puzzlegym). :mod:`puzzlegym.sandbox.harness` starts it under bubblewrap
(:mod:`puzzlegym.sandbox.isolation`) as ``python -I -S -c SOURCE CONFIG`` and speaks to it over
its stdin/stdout with length-prefixed JSON frames.

The operating system is the boundary (an unprivileged host uid, namespaces, read-only mounts,
no puzzlegym files in sight, a work directory bounded in bytes and inodes); the parent trusts
nothing this program says and bounds every frame, count and wait itself. This program is PID 2
of its namespace (bwrap's init is PID 1). Before any model code runs it

* moves the protocol onto private file descriptors and points fds 0-2 at /dev/null, so
  ``print`` (captured, bounded) and stray writes cannot corrupt the protocol by accident;
* sets resource limits, soft and hard (so they cannot be raised again): address space (the
  memory limit), a CPU-time backstop, file size, open files, tasks (``RLIMIT_NPROC``, which
  the kernel enforces because the uid is not root), no core dumps;
* installs the seccomp filter the parent built (:mod:`puzzlegym.sandbox.seccomp`): no new
  processes, no reaching other processes, no memory outside the address-space limit (memfd,
  SysV and POSIX IPC), no sockets, less kernel surface.

It installs no Python-level guard (no audit hook): model code can rewrite anything in this
interpreter, so every rule it lives under is one the kernel enforces.

Then it serves: ``{"op": "exec", "code"}`` runs the code in one persistent namespace where
the GUI API (``click``, ``double_click``, ``drag``, ``key``, ``type_text``, ``scroll``,
``wait``, ``screenshot``) sends requests to the agent and waits for the answers; the run ends
with ``{"op": "done", "stdout", "error"}``. Every frame of a run carries the run's number
(``"run"``) as the exec frame gave it, so the parent can drop frames left over from an earlier
run.
"""

import io
import json
import os
import resource
import struct
import sys
import traceback

HEADER = struct.Struct(">I")
MAX_FRAME = 16 * 1024 * 1024

_proto_in = None
_proto_out = None
_run_id = None  # the run whose code is running (every frame sent names it)


class GUIError(Exception):
    """A GUI call the agent refused (the message says why)."""


class Screenshot:
    """The screen as RGB bytes, row by row from the top-left corner."""

    def __init__(self, width, height, rgb):
        self.width, self.height, self.rgb = width, height, rgb

    def pixel(self, x, y):
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise IndexError(f"pixel ({x}, {y}) is off the {self.width}x{self.height} screen")
        i = 3 * (y * self.width + x)
        return tuple(self.rgb[i : i + 3])

    def to_numpy(self):
        import numpy

        return (
            numpy.frombuffer(self.rgb, dtype=numpy.uint8).reshape(self.height, self.width, 3).copy()
        )

    def to_pil(self):
        from PIL import Image

        return Image.frombytes("RGB", (self.width, self.height), self.rgb)

    def __repr__(self):
        return f"Screenshot({self.width}x{self.height})"


# ---------------------------------------------------------------------- protocol
def _read_exact(n):
    chunks, got = [], 0
    while got < n:
        chunk = _proto_in.read(n - got)
        if not chunk:
            raise SystemExit(0)  # the agent went away
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _recv_raw():
    (n,) = HEADER.unpack(_read_exact(HEADER.size))
    if n > MAX_FRAME:
        raise SystemExit(3)
    return _read_exact(n)


def _recv():
    return json.loads(_recv_raw().decode("utf-8"))


def _send(doc):
    if _run_id is not None:
        doc = {**doc, "run": _run_id}
    data = json.dumps(doc).encode("utf-8")
    _proto_out.write(HEADER.pack(len(data)) + data)
    _proto_out.flush()


def _request(doc):
    _send(doc)
    reply = _recv()
    if not reply.get("ok"):
        raise GUIError(reply.get("error", "refused"))
    return reply


# ---------------------------------------------------------------------- the GUI API
def _gui(action):
    return _request({"op": "gui", "action": action}).get("result", {})


def click(x, y):
    return _gui({"type": "click", "x": x, "y": y})


def double_click(x, y):
    return _gui({"type": "double_click", "x": x, "y": y})


def drag(x0, y0, x1, y1):
    return _gui({"type": "drag", "x0": x0, "y0": y0, "x1": x1, "y1": y1})


def key(name):
    return _gui({"type": "press_key", "key": name})


def type_text(text):
    return _gui({"type": "type_text", "text": text})


def scroll(direction):
    return _gui({"type": "scroll", "direction": direction})


def wait():
    return _gui({"type": "wait"})


def screenshot():
    head = _request({"op": "screenshot"})
    rgb = _recv_raw()
    return Screenshot(int(head["width"]), int(head["height"]), rgb)


API = {
    "click": click,
    "double_click": double_click,
    "drag": drag,
    "key": key,
    "type_text": type_text,
    "scroll": scroll,
    "wait": wait,
    "screenshot": screenshot,
    "Screenshot": Screenshot,
    "GUIError": GUIError,
}


# ---------------------------------------------------------------------- confinement
def _limit(config):
    def fix(kind, value):
        resource.setrlimit(kind, (value, value))

    fix(resource.RLIMIT_AS, int(config["memory_mb"]) * 1024 * 1024)
    cpu = int(config["cpu_backstop_s"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    fix(resource.RLIMIT_FSIZE, int(config["file_mb"]) * 1024 * 1024)
    fix(resource.RLIMIT_NOFILE, int(config["open_files"]))
    fix(resource.RLIMIT_NPROC, int(config["threads"]))
    fix(resource.RLIMIT_CORE, 0)


def _install_seccomp(config):
    """Load the parent's seccomp filter (bytes of struct sock_filter) with prctl."""
    program = config.get("seccomp")
    if not program:
        return
    import ctypes

    code = bytes.fromhex(program)

    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    buf = ctypes.create_string_buffer(code, len(code))
    fprog = Fprog(len(code) // 8, ctypes.addressof(buf))
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_no_new_privs, pr_set_seccomp, seccomp_mode_filter = 38, 22, 2
    if libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0:
        raise SystemExit(4)
    if libc.prctl(pr_set_seccomp, seccomp_mode_filter, ctypes.byref(fprog), 0, 0) != 0:
        raise SystemExit(5)


# ---------------------------------------------------------------------- output capture
class _Capture(io.TextIOBase):
    def __init__(self, limit):
        self.limit, self.parts, self.size, self.dropped = limit, [], 0, 0

    def write(self, s):
        s = str(s)
        room = self.limit - self.size
        if room > 0:
            self.parts.append(s[:room])
            self.size += min(room, len(s))
        self.dropped += max(0, len(s) - max(room, 0))
        return len(s)

    def text(self):
        out = "".join(self.parts)
        if self.dropped:
            out += f"\n[... {self.dropped} more characters not shown]"
        return out


def _run(code, namespace, limit):
    out = _Capture(limit)
    sys.stdout = sys.stderr = out
    error = None
    try:
        exec(compile(code, "<run_code>", "exec"), namespace)
    except SystemExit:
        error = "SystemExit: exit() does nothing here; the run ended"
    except BaseException as exc:  # noqa: BLE001 - the model's code may raise anything
        tb = traceback.TracebackException.from_exception(exc, limit=-8)
        lines = [ln for ln in tb.format() if 'File "<string>"' not in ln]  # this program's frames
        error = "".join(lines)[-limit:]
    finally:
        sys.stdout = sys.stderr = _Capture(0)
    return out.text(), error


def main():
    global _proto_in, _proto_out, _run_id
    config = json.loads(sys.argv[1])
    _proto_in = os.fdopen(os.dup(0), "rb", buffering=0)
    _proto_out = os.fdopen(os.dup(1), "wb", buffering=0)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    os.chdir(config["workdir"])
    sys.path[:] = list(config["sys_path"])
    _limit(config)
    _install_seccomp(config)
    namespace = {"__name__": "__sandbox__", "__builtins__": __builtins__, **API}
    _send({"op": "ready"})
    while True:
        msg = _recv()
        if msg.get("op") != "exec":
            continue
        _run_id = msg.get("run")
        stdout, error = _run(msg["code"], namespace, int(config["output_chars"]))
        _send({"op": "done", "stdout": stdout, "error": error})


if __name__ == "__main__":
    main()
