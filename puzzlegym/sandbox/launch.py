"""The launcher of the Code Execution sandbox (standard library only; it never imports
puzzlegym). :mod:`puzzlegym.sandbox.isolation` runs it as ``python -I -S -c SOURCE CONFIG``; it
prepares what bubblewrap cannot, then becomes bubblewrap (``execv``, same process):

1. a private mount namespace of its own (for a harness that is not root, inside a new user
   namespace that maps its own uid and gid only), so nothing it mounts is seen outside it or
   outlives the sandbox;
2. there, on ``base`` (a directory that exists on every Linux machine and that the sandbox's
   files are not under, chosen by the harness), a small tmpfs holding:

   * ``work``: the sandbox's work directory, a tmpfs bounded at mount time in bytes
     (``size=``) *and* inodes (``nr_inodes=``), owned by the sandbox's uid, mode 0700;
   * ``ro0``, ``ro1``, ...: bind mounts of every file and directory the sandbox reads (the
     interpreter, its libraries, the standard library, numpy and Pillow), so that uid 65534
     can reach them even where the host path is not searchable for it (``/root/...``);

3. if the harness is root: drops to the unprivileged host uid and gid in the config (no
   supplementary groups; every capability goes with the uid change) and checks that it
   holds no capability any more;
4. ``execve`` of bubblewrap with the command line the harness built (its binds name the staged
   paths above) and only ``PATH`` in its environment.

Any failure ends it with exit status 70 and one line on stderr that says which step failed;
the harness reports that line (:class:`~puzzlegym.sandbox.isolation.SandboxUnavailable`).
"""

import ctypes
import json
import os
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
STAGE_OPTIONS = "size=1m,nr_inodes=1024,mode=0755"

_libc = ctypes.CDLL(None, use_errno=True)


def fail(step, detail):
    sys.stderr.write(f"sandbox launcher: {step}: {detail}\n")
    sys.stderr.flush()
    os._exit(70)


def call(step, ret):
    if ret != 0:
        fail(step, os.strerror(ctypes.get_errno()))


def mount(source, target, fstype, flags, data, step):
    def arg(s):
        return None if s is None else os.fsencode(s)

    call(step, _libc.mount(arg(source), arg(target), arg(fstype), flags, arg(data)))


def write(path, text, step):
    try:
        with open(path, "w") as fh:
            fh.write(text)
    except OSError as exc:
        fail(step, exc.strerror or str(exc))


def own_namespaces(root, uid, gid):
    """Step 1 (module docstring)."""
    if root:
        call("unshare(CLONE_NEWNS) as root", _libc.unshare(CLONE_NEWNS))
    else:
        call(
            "unshare(CLONE_NEWUSER | CLONE_NEWNS) (unprivileged user namespaces)",
            _libc.unshare(CLONE_NEWUSER | CLONE_NEWNS),
        )
        write("/proc/self/setgroups", "deny", "writing /proc/self/setgroups")
        write("/proc/self/uid_map", f"{uid} {uid} 1", "writing /proc/self/uid_map")
        write("/proc/self/gid_map", f"{gid} {gid} 1", "writing /proc/self/gid_map")
    mount(None, "/", None, MS_REC | MS_PRIVATE, None, "making / private")


def stage(config, uid, gid):
    """Step 2 (module docstring)."""
    base = config["base"]
    mount(
        "tmpfs", base, "tmpfs", MS_NOSUID | MS_NODEV, STAGE_OPTIONS, f"mounting a tmpfs on {base}"
    )
    work = os.path.join(base, "work")
    os.mkdir(work, 0o700)
    options = (
        f"size={int(config['work_bytes'])},nr_inodes={int(config['work_inodes'])},"
        f"mode=0700,uid={uid},gid={gid}"
    )
    mount("tmpfs", work, "tmpfs", MS_NOSUID | MS_NODEV, options, "mounting the work directory")
    for i, source in enumerate(config["stage"]):
        target = os.path.join(base, f"ro{i}")
        try:
            if os.path.isdir(source):
                os.mkdir(target, 0o755)
            else:
                os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        except OSError as exc:
            fail(f"staging {source}", exc.strerror or str(exc))
        mount(source, target, None, MS_BIND | MS_REC, None, f"binding {source}")


def drop(uid, gid):
    """Step 3 (module docstring)."""
    try:
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    except OSError as exc:
        fail(f"dropping to uid {uid}", exc.strerror or str(exc))
    if os.getresuid() != (uid, uid, uid) or os.getresgid() != (gid, gid, gid):
        fail(f"dropping to uid {uid}", "the ids did not change")
    with open("/proc/self/status") as fh:
        caps = dict(line.split(":", 1) for line in fh if line.startswith("Cap"))
    if any(int(caps.get(name, "0").strip(), 16) for name in ("CapPrm", "CapEff", "CapAmb")):
        fail(f"dropping to uid {uid}", "capabilities remain")


def main():
    config = json.loads(sys.argv[1])
    uid, gid = int(config["uid"]), int(config["gid"])
    root = os.geteuid() == 0
    if root and uid == 0:
        fail("config", "the sandbox may not run as host root")
    own_namespaces(root, uid, gid)
    stage(config, uid, gid)
    if root:
        drop(uid, gid)
    argv = [str(a) for a in config["argv"]]
    try:
        os.execve(argv[0], argv, {"PATH": "/usr/bin:/bin"})
    except OSError as exc:
        fail(f"starting {argv[0]}", exc.strerror or str(exc))


if __name__ == "__main__":
    main()
