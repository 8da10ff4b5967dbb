"""The seccomp filter of the Code Execution sandbox: a classic-BPF program the sandboxed child
installs on itself (``prctl(PR_SET_SECCOMP)``, :mod:`.child`) before any model code
runs. It is a second line behind the namespaces of :mod:`.isolation`; what it adds:

* no new processes: ``fork``, ``vfork``, ``clone`` without ``CLONE_THREAD`` and ``execve`` /
  ``execveat`` fail with EPERM (threads still start; ``clone3`` answers ENOSYS, so the C
  library falls back to ``clone``, which is checked);
* no reaching other processes: ``ptrace``, ``process_vm_readv/writev``, ``kcmp``,
  ``pidfd_getfd``, and ``prlimit64`` on any process but itself;
* less kernel surface: namespaces (``unshare``, ``setns``), mounts, keyrings, ``bpf``,
  ``perf_event_open``, ``userfaultfd``, ``io_uring``, module loading, ``personality``, file
  handles, and sockets of any family (``socket``, ``socketpair``);
* no memory outside the address-space limit (``RLIMIT_AS`` counts every mapping, shared
  ones included, but not memory held by a file descriptor): ``memfd_create``,
  ``memfd_secret``, SysV shared memory, semaphores and message queues, POSIX message queues,
  and ``fcntl(F_SETPIPE_SZ)`` (a pipe keeps its 64 KiB default) fail with EPERM;
* syscalls of another ABI (32-bit ``int 0x80`` calls, x32) kill the process.

The program is built for x86_64, the architecture this project runs on; elsewhere
:func:`filter_program` returns None and the sandbox reports ``"seccomp": false`` in its
description (the namespaces, read-only mounts and limits still hold).
"""

from __future__ import annotations

import errno
import platform
import struct

__all__ = ["DENIED_SYSCALLS", "filter_program"]

# classic BPF (linux/filter.h, linux/seccomp.h)
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_BIT = 0x40000000
_CLONE_THREAD = 0x00010000
# offsets in struct seccomp_data: nr, arch, instruction pointer, args[6] (little-endian u64)
_NR, _ARCH = 0, 4


def _arg_lo(i: int) -> int:
    return 16 + 8 * i


def _arg_hi(i: int) -> int:
    return 20 + 8 * i


# x86_64 numbers (arch/x86/entry/syscalls/syscall_64.tbl)
DENIED_SYSCALLS = {
    "fork": 57,
    "vfork": 58,
    "execve": 59,
    "execveat": 322,
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "pidfd_getfd": 438,
    "unshare": 272,
    "setns": 308,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "chroot": 161,
    "keyctl": 250,
    "add_key": 248,
    "request_key": 249,
    "bpf": 321,
    "perf_event_open": 298,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "init_module": 175,
    "finit_module": 313,
    "delete_module": 176,
    "kexec_load": 246,
    "kexec_file_load": 320,
    "personality": 135,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "fsopen": 430,
    "fsmount": 432,
    "open_tree": 428,
    "move_mount": 429,
    "mount_setattr": 442,
    "acct": 163,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "quotactl": 179,
    # memory that no address-space limit counts: anonymous files, SysV and POSIX IPC
    "memfd_create": 319,
    "memfd_secret": 447,
    "shmget": 29,
    "shmat": 30,
    "shmctl": 31,
    "shmdt": 67,
    "semget": 64,
    "semop": 65,
    "semctl": 66,
    "semtimedop": 220,
    "msgget": 68,
    "msgsnd": 69,
    "msgrcv": 70,
    "msgctl": 71,
    "mq_open": 240,
    "mq_unlink": 241,
    "mq_timedsend": 242,
    "mq_timedreceive": 243,
    "mq_notify": 244,
    "mq_getsetattr": 245,
    # sockets of any family (their buffers are kernel memory too; there is no network anyway)
    "socket": 41,
    "socketpair": 53,
}
_CLONE, _CLONE3, _PRLIMIT64, _FCNTL = 56, 435, 302, 72
_F_SETPIPE_SZ = 1031


class _Program:
    """A tiny assembler: instructions with symbolic jump targets, resolved at the end."""

    def __init__(self) -> None:
        self.code: list[tuple[int, object, object, int]] = []
        self.labels: dict[str, int] = {}

    def op(self, code: int, k: int, jt: object = 0, jf: object = 0) -> None:
        self.code.append((code, jt, jf, k))

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def assemble(self) -> bytes:
        out = []
        for i, (code, jt, jf, k) in enumerate(self.code):

            def rel(target: object, i: int = i) -> int:
                if isinstance(target, int):
                    return target
                offset = self.labels[str(target)] - i - 1
                if not 0 <= offset <= 255:
                    raise ValueError(f"seccomp jump to {target} out of range")
                return offset

            out.append(struct.pack("<HBBI", code, rel(jt), rel(jf), k))
        return b"".join(out)


def filter_program(machine: str | None = None) -> bytes | None:
    """The filter as bytes (struct sock_filter entries), or None on an architecture without a
    table (see the module docstring)."""
    if (machine or platform.machine()) != "x86_64":
        return None
    p = _Program()
    eperm = _RET_ERRNO | errno.EPERM
    p.op(_LD_W_ABS, _ARCH)
    p.op(_JEQ_K, _AUDIT_ARCH_X86_64, 0, "kill")
    p.op(_LD_W_ABS, _NR)
    p.op(_JGE_K, _X32_BIT, "kill", 0)
    for nr in sorted(DENIED_SYSCALLS.values()):
        p.op(_JEQ_K, nr, "eperm", 0)
    p.op(_JEQ_K, _CLONE, "clone", 0)
    p.op(_JEQ_K, _CLONE3, "enosys", 0)
    p.op(_JEQ_K, _PRLIMIT64, "prlimit", 0)
    p.op(_JEQ_K, _FCNTL, "fcntl", 0)
    p.op(_RET_K, _RET_ALLOW)
    p.label("clone")  # a thread (CLONE_THREAD in the flags, args[0]) or nothing
    p.op(_LD_W_ABS, _arg_lo(0))
    p.op(_JSET_K, _CLONE_THREAD, "allow", "eperm")
    p.label("prlimit")  # only on itself: pid (args[0]) == 0
    p.op(_LD_W_ABS, _arg_lo(0))
    p.op(_JEQ_K, 0, 0, "eperm")
    p.op(_LD_W_ABS, _arg_hi(0))
    p.op(_JEQ_K, 0, "allow", "eperm")
    p.label("fcntl")  # pipes keep their default 64 KiB buffer (cmd, args[1])
    p.op(_LD_W_ABS, _arg_lo(1))
    p.op(_JEQ_K, _F_SETPIPE_SZ, "eperm", "allow")
    p.label("allow")
    p.op(_RET_K, _RET_ALLOW)
    p.label("eperm")
    p.op(_RET_K, eperm)
    p.label("enosys")
    p.op(_RET_K, _RET_ERRNO | errno.ENOSYS)
    p.label("kill")
    p.op(_RET_K, _RET_KILL_PROCESS)
    return p.assemble()
