"""The Code Execution sandbox attacked as a hostile model would: each test is the code a model
would send to get out (read the harness's key, memory or files, write outside its work
directory, leave a process behind, change the harness's limits, compute after its run, flood
the protocol, stall the agent), run through the public API (Sandbox) and, for several routes,
through ``puzzlegym run --setting code`` against the scripted model server.

Every test checks the same things afterwards: nothing secret was read (a marker key in the
parent's environment, a marker string in the parent's memory, a marker file outside, the
parent's working directory), nothing was written outside, no process is left in the
sandbox's PID namespace or anywhere with the test's marker, and the key is in no request,
record, agent log or stderr. They are skipped, with the reason, only where bubblewrap cannot
run the sandbox (found by trying)."""

from __future__ import annotations

import base64
import json
import os
import resource
import shutil
import subprocess
import sys
import sysconfig
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

from puzzlegym.agents.isolation import SandboxUnavailable
from puzzlegym.agents.sandbox import Sandbox, SandboxLimits
from tests.conftest import scripted

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-escape-test-0123456789-KEY-" + uuid.uuid4().hex
MEMORY_MARKER = ("parent-memory-" + uuid.uuid4().hex).encode()  # exists only in this process
LIMIT_S = 2.0


# --------------------------------------------------------------------------- what must stay out
class Outside:
    """The harness side of one test: the key in the environment, a secret file, a working
    directory whose name holds the marker, and the checks that nothing got out."""

    def __init__(self, tmp_path: Path) -> None:
        self.marker = "pgescape" + uuid.uuid4().hex[:12]
        self.dir = tmp_path / f"outside-{self.marker}"
        self.dir.mkdir()
        self.secret = self.dir / "secret.txt"
        self.secret_text = "file-secret-" + uuid.uuid4().hex
        self.secret.write_text(self.secret_text)
        self.cwd = tmp_path / f"cwd-{self.marker}"
        self.cwd.mkdir()
        self.pid = os.getpid()
        self.namespaces: set[str] = set()

    def secrets(self) -> list[str]:
        return [KEY, self.secret_text, MEMORY_MARKER.decode(), str(self.cwd)]

    def assert_nothing_read(self, *texts: str) -> None:
        for text in texts:
            for secret in self.secrets():
                assert secret not in (text or ""), f"{secret[:24]}... got out"

    def targets(self) -> dict:
        """Paths the hostile code is given (as a model could guess or reach them)."""
        import puzzlegym

        return {
            "parent": self.pid,
            "secret": str(self.secret),
            "source": str(Path(puzzlegym.__file__).parent / "env.py"),
            "write": str(self.dir / f"escaped-{self.marker}"),
            "tmp_write": f"/tmp/escaped-{self.marker}",
            "cwd": str(self.cwd),
            "marker": self.marker,
        }

    def watch(self, box: Sandbox) -> None:
        """Remember the PID namespace of the box's current session."""
        if box.pid is not None:
            self.namespaces.add(os.readlink(f"/proc/{box.pid}/ns/pid"))

    def assert_clean(self) -> None:
        """Nothing written outside, no process left (in the sandbox's namespaces or with the
        marker on its command line)."""
        written = [p for p in self.dir.iterdir() if p.name != "secret.txt"]
        assert written == [], written
        assert not Path(f"/tmp/escaped-{self.marker}").exists()
        assert self.secret.read_text() == self.secret_text
        left = []
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit() or int(proc.name) == os.getpid():
                continue
            try:
                ns = os.readlink(proc / "ns" / "pid")
                cmdline = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if ns in self.namespaces or self.marker.encode() in cmdline:
                left.append((proc.name, cmdline[:80]))
        assert left == []


@pytest.fixture
def outside(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    o = Outside(tmp_path)
    monkeypatch.chdir(o.cwd)
    yield o
    o.assert_clean()


@pytest.fixture
def box(outside, sandbox_available):
    sandbox = Sandbox(SandboxLimits(time_s=LIMIT_S, memory_mb=512, output_chars=4000, gui_calls=50))
    yield sandbox
    outside.watch(sandbox)
    sandbox.close()


def hostile(box: Sandbox, outside: Outside, code: str, on_gui=None) -> tuple:
    """Run ``code`` (with ``T``, the targets, defined) to its end; the agent side answers GUI
    calls (``on_gui(box)`` first, if given) and screenshots. Returns the final event."""
    box.start_run(f"T = {json.dumps(outside.targets())}\n" + code)
    outside.watch(box)
    while True:
        event = box.next_event()
        outside.watch(box)
        if event[0] == "gui":
            if on_gui is not None:
                on_gui(box)
            box.reply(True, {"accepted": True, "feedback": "ok"})
        elif event[0] == "screenshot":
            box.send_frame(np.zeros((900, 1280, 3), np.uint8))
        else:
            return event


def finished(event: tuple) -> str:
    """The printed output (and error) of a run that ended normally."""
    assert event[0] == "done", event
    return event[1] + (event[2] or "")


# --------------------------------------------------------------------------- the routes
# An fd on / that no path check sees: relative names are checked against the working
# directory, which is moved deep into the work directory, while they are opened relative to
# an fd that climbs from the work directory to the root.
ROOT_FD = """
import os, sys
def root_fd():
    deep = os.path.join(*['d'] * 40)
    os.makedirs(deep, exist_ok=True)
    fd = os.open('.', os.O_RDONLY | os.O_DIRECTORY)
    os.chdir(deep)
    for _ in range(30):
        fd = os.open('..', os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
    return fd
"""


def test_dir_fd_on_root_reads_nothing_outside(box, outside):
    code = (
        ROOT_FD
        + """
R = root_fd()
pid, chain = T['parent'], []
p = os.getppid()
while p > 1 and len(chain) < 10:  # the parent chain as /proc shows it
    chain.append(p)
    try:
        p = int(open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()[1])
    except Exception:
        break
names = [f'proc/{q}/environ' for q in [pid, *chain, 1]] + [f'proc/{pid}/cmdline', 'etc/passwd',
         T['secret'].lstrip('/'), T['source'].lstrip('/')]
for name in names:
    try:
        fd = os.open(name, os.O_RDONLY, dir_fd=R)
        print(name, 'GOT:', os.read(fd, 1 << 20))
    except OSError as e:
        print(name, type(e).__name__)
"""
    )
    out = finished(hostile(box, outside, code))
    outside.assert_nothing_read(out)
    assert out.count("GOT:") == 1 and "proc/1/environ GOT:" in out  # pid 1 is the child itself
    assert f"proc/{outside.pid}/environ FileNotFoundError" in out
    assert "etc/passwd FileNotFoundError" in out
    assert f"{outside.targets()['source'].lstrip('/')} FileNotFoundError" in out


def test_dir_fd_on_root_writes_nothing_outside(box, outside):
    code = (
        ROOT_FD
        + """
R = root_fd()
for name in [T['write'], T['tmp_write'], '/escaped-' + T['marker'], T['source'] + '.escaped']:
    try:
        fd = os.open(name.lstrip('/'), os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=R)
        os.write(fd, b'escaped')
        print(name, 'WROTE')
    except OSError as e:
        print(name, type(e).__name__)
"""
    )
    out = finished(hostile(box, outside, code))
    assert "WROTE" not in out and out.count("OSError") + out.count("FileNotFoundError") == 4
    assert not Path(outside.targets()["source"] + ".escaped").exists()


def test_parent_memory_cannot_be_read_through_proc_mem(box, outside):
    assert MEMORY_MARKER in bytes(MEMORY_MARKER)  # the marker lives in this (the parent) process
    code = (
        ROOT_FD
        + """
R = root_fd()
found = []
for pid in {T['parent'], os.getppid()}:
    try:
        maps = os.read(os.open(f'proc/{pid}/maps', os.O_RDONLY, dir_fd=R), 1 << 22).decode()
        mem = os.open(f'proc/{pid}/mem', os.O_RDONLY, dir_fd=R)
    except OSError as e:
        print(pid, 'mem', type(e).__name__)
        continue
    for line in maps.splitlines():
        lo, hi = (int(x, 16) for x in line.split()[0].split('-'))
        try:
            chunk = os.pread(mem, min(hi - lo, 1 << 24), lo)
        except OSError:
            continue
        i = chunk.find(b'parent-memory-')
        if i >= 0:
            found.append(chunk[i:i + 60])
print('found', found)
"""
    )
    out = finished(hostile(box, outside, code))
    outside.assert_nothing_read(out)
    assert "found []" in out and f"{outside.pid} mem FileNotFoundError" in out


POSIXSUBPROCESS = """
import glob, importlib.util, os, sys
so = glob.glob(os.path.dirname(os.__file__) + '/lib-dynload/_posixsubprocess*.so')[0]
spec = importlib.util.spec_from_file_location('renamed._posixsubprocess', so)  # not the hook's name
ps = importlib.util.module_from_spec(spec)
def start(argv, setsid):
    r, w = os.pipe()
    exe = [os.fsencode(argv[0])]
    args = [os.fsencode(a) for a in argv]
    if sys.version_info >= (3, 11):
        extra = (-1, None, None, None, -1, None, False)
    else:
        extra = (None, None, None, -1, None)
    return ps.fork_exec(
        args, exe, True, (w,), None, None, -1, -1, -1, -1, -1, -1, r, w, False, setsid, *extra
    )
"""


def test_renamed_posixsubprocess_starts_no_process(box, outside):
    code = (
        POSIXSUBPROCESS
        + """
shell = f"echo escaped > {T['write']}; sleep 30 # {T['marker']}"
for argv in (
    ['/bin/sh', '-c', shell],
    [sys.executable, '-c',
     f"import time; open({T['write']!r}, 'w'); time.sleep(30) # {T['marker']}"],
):
    try:
        print('started', start(argv, False))
    except OSError as e:
        print(argv[0], type(e).__name__, e.errno)
"""
    )
    out = finished(hostile(box, outside, code))
    assert "started" not in out and out.count("PermissionError 1") == 2  # EPERM: no fork at all


def c_extension(tmp_path: Path) -> bytes:
    """A C extension whose import reads the secret file, writes outside, and forks a shell."""
    if shutil.which("gcc") is None:
        pytest.skip("no C compiler to build the hostile extension")
    src = tmp_path / "native_escape.c"
    src.write_text(r"""
#include <Python.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <signal.h>
static PyObject *attempt(PyObject *self, PyObject *args) {
    const char *secret, *target, *marker;
    if (!PyArg_ParseTuple(args, "sss", &secret, &target, &marker)) return NULL;
    char buf[256] = {0}, out[1024];
    int fd = open(secret, O_RDONLY), rd = -1, rd_errno = 0;
    if (fd >= 0) { rd = (int)read(fd, buf, 255); close(fd); } else rd_errno = errno;
    int wfd = open(target, O_WRONLY | O_CREAT, 0644), w_errno = wfd < 0 ? errno : 0;
    if (wfd >= 0) { write(wfd, "escaped", 7); close(wfd); }
    long pid = syscall(SYS_fork); int f_errno = pid < 0 ? errno : 0;
    if (pid == 0) { setsid(); char cmd[256]; snprintf(cmd, sizeof cmd, "sleep 30 # %s", marker);
                    execl("/bin/sh", "sh", "-c", cmd, (char *)0); for (;;) pause(); }
    long cl = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0); int c_errno = cl < 0 ? errno : 0;
    if (cl == 0) { for (;;) pause(); }
    snprintf(out, sizeof out, "read=%d/%d:%s write=%d/%d fork=%ld/%d clone=%ld/%d",
             rd, rd_errno, buf, wfd, w_errno, pid, f_errno, cl, c_errno);
    return PyUnicode_FromString(out);
}
static PyMethodDef methods[] = {{"attempt", attempt, METH_VARARGS, ""}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "native_escape", NULL, -1, methods};
PyMODINIT_FUNC PyInit_native_escape(void) { return PyModule_Create(&mod); }
""")
    so = tmp_path / ("native_escape" + sysconfig.get_config_var("EXT_SUFFIX"))
    subprocess.run(
        [
            "gcc",
            "-shared",
            "-fPIC",
            "-O1",
            f"-I{sysconfig.get_paths()['include']}",
            str(src),
            "-o",
            str(so),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return so.read_bytes()


def test_c_extension_written_to_the_work_dir_is_still_confined(box, outside, tmp_path):
    build = tmp_path / "build"
    build.mkdir()
    blob = base64.b64encode(c_extension(build))
    code = f"""
import base64, os, sys, sysconfig
name = 'native_escape' + (sysconfig.get_config_var('EXT_SUFFIX') or '.so')
open(name, 'wb').write(base64.b64decode({blob.decode()!r}))
sys.path.insert(0, os.getcwd())
import native_escape
print(native_escape.attempt(T['secret'], T['write'], T['marker']))
"""
    out = finished(hostile(box, outside, code))
    outside.assert_nothing_read(out)
    # the native code ran (it printed), and the kernel refused all four
    assert "read=-1/2:" in out  # ENOENT: the file is not in the sandbox
    assert "write=-1/2 " in out or "write=-1/30 " in out  # ENOENT or EROFS
    assert "fork=-1/1 " in out and out.rstrip().endswith("clone=-1/1")  # EPERM (seccomp)


def test_sqlite_creates_no_database_outside(box, outside):
    code = """
import sqlite3
for path in [T['write'] + '.db', T['tmp_write'] + '.db', '/' + T['marker'] + '.db']:
    try:
        con = sqlite3.connect(path)
        con.execute('create table t (x)')
        con.commit()
        print(path, 'CREATED')
    except Exception as e:
        print(path, type(e).__name__)
"""
    out = finished(hostile(box, outside, code))
    assert (
        "CREATED" not in out and out.count("OperationalError") + out.count("PermissionError") == 3
    )


def test_a_setsid_process_does_not_survive_close(box, outside):
    code = (
        POSIXSUBPROCESS
        + """
for argv in (
    ['/bin/sh', '-c', f"sleep 60 # {T['marker']}"],
    [sys.executable, '-c', f"import time; time.sleep(60) # {T['marker']}"],
):
    try:
        print('started', start(argv, True))
    except OSError as e:
        print(argv[0], type(e).__name__)
import threading, time
# a thread keeps the process busy
threading.Thread(target=time.sleep, args=(60,), daemon=False).start()
print('threads', threading.active_count())
"""
    )
    out = finished(hostile(box, outside, code))
    assert "started" not in out and "threads 2" in out
    outside.watch(box)
    box.close()
    outside.assert_clean()  # (again after the fixture's close) no process in its namespace


def test_prlimit_cannot_change_the_parents_limits(box, outside):
    before = resource.getrlimit(resource.RLIMIT_MSGQUEUE)
    code = """
import os, resource
for pid in sorted({os.getppid(), T['parent'], 1}):
    try:
        resource.prlimit(pid, resource.RLIMIT_MSGQUEUE, (12345, 12345))
        print(pid, 'CHANGED')
    except OSError as e:
        print(pid, type(e).__name__)
"""
    out = finished(hostile(box, outside, code))
    assert resource.getrlimit(resource.RLIMIT_MSGQUEUE) == before
    # its parent is outside its PID namespace (getppid() is 0, which prlimit reads as itself);
    # any other pid, its own included, is refused by the seccomp filter
    assert out.splitlines() == ["0 CHANGED", "1 PermissionError", f"{outside.pid} PermissionError"]


def _state(pid: int) -> tuple[str, int]:
    """The states of all the process's threads (one letter each, sorted) and its CPU ticks."""
    states = sorted(
        p.read_text().rsplit(")", 1)[1].split()[0] for p in Path(f"/proc/{pid}/task").glob("*/stat")
    )
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return "".join(states), int(fields[11]) + int(fields[12])


def test_a_background_thread_computes_nothing_once_its_run_is_done(box, outside):
    code = """
import threading
def spin():
    while True:
        pass
threading.Thread(target=spin, daemon=True).start()
print('started')
"""
    assert finished(hostile(box, outside, code)).strip() == "started"
    pid = box.pid
    state, cpu = _state(pid)
    samples = []
    for _ in range(5):  # the model thinks: the process stays stopped and its CPU time frozen
        time.sleep(0.1)
        samples.append(_state(pid))
    assert state == "TT" and samples == [("TT", cpu)] * 5  # both threads stopped
    # while the agent performs a GUI call the child is stopped too
    seen = []
    out = finished(
        hostile(
            box,
            outside,
            "print(wait()['accepted'])",
            on_gui=lambda b: seen.append(_state(b.pid)[0]),
        )
    )
    assert seen == ["TT"] and out.strip() == "True"


def test_a_forged_done_frame_cannot_exceed_the_output_limit(box, outside):
    code = """
import sys
main = sys.modules['__main__']
main._send({'op': 'done', 'stdout': 'A' * 150_000, 'error': None})
"""
    event = hostile(box, outside, code)
    # the parent cut it to the limit itself; the child's own cut was bypassed
    assert (
        event[0] == "done" and event[1] == "A" * 4000 + "\n[... 146000 more characters not shown]"
    )
    flood = (
        "import sys\n"
        "sys.modules['__main__']._send({'op': 'done', 'stdout': 'A' * 8_000_000, 'error': None})"
    )
    kind, reason = hostile(box, outside, flood)
    assert kind == "failed" and "broke the sandbox protocol: a frame of 8000" in reason
    forged = (
        "import os, sys\n"
        "os.write(sys.modules['__main__']._proto_out.fileno(), b'\\xff\\xff\\xff\\xff')\n"
        "import time; time.sleep(5)"
    )
    kind, reason = hostile(box, outside, forged)
    assert kind == "failed" and "a frame of 4294967295 bytes" in reason
    odd = (
        "import sys\nsys.modules['__main__']._send({'op': 'done', 'stdout': 1e999, 'error': None})"
    )
    kind, reason = hostile(box, outside, odd)
    assert kind == "failed" and "unexpected frame (op 'done'" in reason


def test_a_screenshot_never_read_costs_the_run_its_time_limit(box, outside):
    code = """
import sys, time
sys.modules['__main__']._send({'op': 'screenshot'})  # ask, then never read the answer
time.sleep(3600)
"""
    kind, reason = hostile(box, outside, code)
    assert kind == "failed" and reason.startswith(
        f"time limit: the code ran for more than {LIMIT_S:g} s"
    )
    assert "(it did not read its screenshot)" in reason


def test_stat_and_readlink_do_not_leak_the_parents_working_directory(box, outside):
    code = (
        ROOT_FD
        + """
print('cwd', os.getcwd(), os.readlink('/proc/self/cwd'))
R = root_fd()
for pid in sorted({T['parent'], os.getppid(), 1}):
    for what in ('cwd', 'root', 'exe'):
        try:
            print(pid, what, os.readlink(f'proc/{pid}/{what}', dir_fd=R))
        except OSError as e:
            print(pid, what, type(e).__name__)
for path in (T['cwd'], os.path.dirname(T['cwd'])):
    try:
        print(path, os.stat(path.lstrip('/'), dir_fd=R))
    except OSError as e:
        print('stat', type(e).__name__)
print(os.read(os.open('proc/self/mountinfo', os.O_RDONLY, dir_fd=R), 1 << 20).decode())
"""
    )
    out = finished(hostile(box, outside, code))
    outside.assert_nothing_read(out)
    assert "cwd /sandbox /sandbox" in out and out.count("stat FileNotFoundError") == 2
    assert f"{outside.pid} cwd FileNotFoundError" in out


def test_the_childs_environment_and_view_hold_nothing_of_the_harness(box, outside):
    code = """
import os, sys
print(sorted(os.environ))
print(sys.path)
try:
    import puzzlegym
except ImportError as e:
    print('import', e)
"""
    out = finished(hostile(box, outside, code))
    assert out.splitlines()[0] == str(
        sorted(
            [
                "HOME",
                "LANG",
                "MKL_NUM_THREADS",
                "OMP_NUM_THREADS",
                "OPENBLAS_NUM_THREADS",
                "PATH",
                "PWD",
                "TMPDIR",
            ]
        )
    )
    assert "site-packages" not in out and str(ROOT) not in out
    outside.assert_nothing_read(out)


# --------------------------------------------------------------------------- through puzzlegym run
def run_code_turn(code: str) -> dict:
    return {"tool_calls": [{"name": "run_code", "arguments": {"code": code}}]}


def test_puzzlegym_run_setting_code_keeps_every_route_shut(tmp_path, outside, sandbox_available):
    t = {k: v for k, v in outside.targets().items() if k != "cwd"}  # the model is not told it
    prelude = f"T = {json.dumps(t)}\n"
    turns = [
        run_code_turn(
            prelude
            + ROOT_FD
            + """
R = root_fd()
p, seen = os.getppid(), []
for q in [T['parent'], p, 1]:
    try:
        seen.append(os.read(os.open(f'proc/{q}/environ', os.O_RDONLY, dir_fd=R), 1 << 20))
    except OSError as e:
        seen.append(type(e).__name__)
print('environ', seen)
try:
    print('secret', os.read(os.open(T['secret'].lstrip('/'), os.O_RDONLY, dir_fd=R), 4096))
except OSError as e:
    print('secret', type(e).__name__)
"""
        ),
        run_code_turn(
            prelude
            + ROOT_FD
            + """
R = root_fd()
try:
    os.write(os.open(T['write'].lstrip('/'), os.O_WRONLY | os.O_CREAT, dir_fd=R), b'x')
    print('WROTE')
except OSError as e:
    print('write', type(e).__name__)
"""
        ),
        run_code_turn(
            prelude
            + POSIXSUBPROCESS
            + """
try:
    print('started', start(['/bin/sh', '-c', f"sleep 60 # {T['marker']}"], True))
except OSError as e:
    print('fork', type(e).__name__)
"""
        ),
        run_code_turn(
            "import sys\n"
            "sys.modules['__main__']._send("
            "{'op': 'done', 'stdout': 'A' * 8_000_000, 'error': None})"
        ),
        run_code_turn(
            "import sys\n"
            "sys.modules['__main__']._send({'op': 'done', 'stdout': 'A' * 100_000, 'error': None})"
        ),
        run_code_turn(
            "import sys, time\n"
            "sys.modules['__main__']._send({'op': 'screenshot'})\ntime.sleep(3600)"
        ),
        {"tool_calls": [{"name": "answer", "arguments": {"text": "done"}}]},
    ]
    out = tmp_path / "episode"
    with scripted({"model": "m", "turns": turns}) as (model, url):
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
        env["OPENAI_API_KEY"] = KEY
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "puzzlegym",
                "run",
                "LongPuzzle/MazePaint-Easy",
                "--agent",
                "openai:m",
                "--setting",
                "code",
                "--base-url",
                url,
                "--level",
                "1",
                "--start",
                "board",
                "--out",
                str(out),
                "--no-gif",
                "--json",
                "--code-time-limit-s",
                "2",
            ],
            cwd=outside.cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        requests = model.requests
    assert proc.returncode == 0, proc.stderr
    results = [m["content"] for m in requests[-1]["messages"] if m["role"] == "tool"]
    assert len(results) == 6
    # the harness and its parent (pid 0: outside the namespace) are not there; pid 1 is the child
    assert "environ ['FileNotFoundError', 'FileNotFoundError', b'PATH=/nonexistent" in results[0]
    assert "secret FileNotFoundError" in results[0]
    assert "write FileNotFoundError" in results[1] or "write OSError" in results[1]
    assert "fork PermissionError" in results[2]
    assert "broke the sandbox protocol: a frame of 8000" in results[3]
    assert "A" * 4000 + "\n[... 96000 more characters not shown]" in results[4]
    assert "time limit" in results[5] and "did not read its screenshot" in results[5]
    # the biggest request is bounded by the output limit, not by what the child sent
    assert max(len(json.dumps(r)) for r in requests) < 200_000
    files = "".join(
        p.read_text(errors="replace")
        for p in out.rglob("*")
        if p.is_file() and p.suffix in (".json", ".jsonl")
    )
    outside.assert_nothing_read(json.dumps(requests), files, proc.stderr, proc.stdout)
    assert "agent.jsonl" in {p.name for p in out.rglob("*")}


def test_code_setting_refuses_to_start_without_bubblewrap(tmp_path, outside):
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty), "OPENAI_API_KEY": KEY}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "puzzlegym",
            "run",
            "LongPuzzle/MazePaint-Easy",
            "--agent",
            "openai:m",
            "--setting",
            "code",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--out",
            str(tmp_path / "none"),
        ],
        cwd=outside.cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "code sandbox: bubblewrap (bwrap) is not installed" in proc.stderr
    assert "apt-get install bubblewrap" in proc.stderr
    assert not (tmp_path / "none").exists()  # refused before anything started


def test_a_bwrap_that_cannot_create_namespaces_is_refused(tmp_path, monkeypatch):
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    with pytest.raises(
        SandboxUnavailable,
        match=r"cannot create the sandbox here \(bwrap: No permissions "
        r"to create new namespace\).*apt-get install bubblewrap",
    ):
        Sandbox()
