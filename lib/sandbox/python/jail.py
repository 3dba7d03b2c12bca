# What a call's child does to itself before it asks for its job: limits, no privileges, and a seccomp filter. The
# namespaces around it are bubblewrap's (lib/sandbox/bubblewrap.ts); this is the part only the process can do.
import ctypes
import errno
import os
import resource
import socket

import seccomp

# System calls a call may not make, whatever code it runs (native code included): new processes and threads, other
# processes' memory and signals, namespaces and mounts, kernel interfaces that have been escape routes (bpf, keyring,
# perf, io_uring, userfaultfd), sockets (the network is the host's, through the channel a child already holds), and
# System V IPC, whose objects would outlive the call.
DENIED = [
    *["fork", "vfork", "clone", "execve", "execveat"],
    *["ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_open", "pidfd_getfd", "pidfd_send_signal"],
    *["kill", "tkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"],
    *["unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsmount"],
    *["fsconfig", "fspick", "mount_setattr", "name_to_handle_at", "open_by_handle_at"],
    *["bpf", "keyctl", "add_key", "request_key", "perf_event_open", "userfaultfd", "personality", "seccomp"],
    *["io_uring_setup", "io_uring_enter", "io_uring_register"],
    *["socket", "socketpair", "connect", "bind", "listen", "accept", "accept4"],
    *["shmget", "shmat", "msgget", "semget", "mq_open", "memfd_create", "memfd_secret"],
    *["setrlimit", "setpriority", "sched_setaffinity", "sched_setscheduler", "sched_setattr", "sched_setparam"],
    *["ioprio_set", "acct", "quotactl", "get_robust_list"],
    *["init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot", "swapon", "swapoff"],
    *["settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "syslog", "iopl", "ioperm", "modify_ldt"],
    *["lookup_dcookie", "vhangup", "mbind", "migrate_pages", "move_pages", "set_mempolicy"],
]
PR_SET_DUMPABLE = 4
MAP_SHARED, MAP_ANONYMOUS, MAP_GROWSDOWN = 0x01, 0x20, 0x0100
F_SETOWN, F_SETSIG, F_SETOWN_EX = 8, 10, 15
FIOSETOWN, SIOCSPGRP, TIOCSTI = 0x8901, 0x8902, 0x5412
OPEN_FILES = 64
FILE_BYTES = 64 * 1024 * 1024

_filter = None


def prepare():
    """Build the filter once, in the zygote; each child only loads it (a fraction of a millisecond)."""
    global _filter
    _filter = seccomp.SyscallFilter(seccomp.ALLOW)
    for name in DENIED:
        _filter.add_rule(seccomp.ERRNO(errno.EPERM), name)
    # Signals by another route than kill(): a descriptor whose owner is another process gets it SIGIO, or any
    # signal F_SETSIG names, when it is ready (fcntl F_SETOWN, F_SETOWN_EX, F_SETSIG; ioctl FIOSETOWN, SIOCSPGRP);
    # and TIOCSTI, which types into a terminal.
    for command in (F_SETOWN, F_SETSIG, F_SETOWN_EX):
        _filter.add_rule(seccomp.ERRNO(errno.EPERM), "fcntl", seccomp.Arg(1, seccomp.EQ, command))
    for request in (FIOSETOWN, SIOCSPGRP, TIOCSTI):
        _filter.add_rule(seccomp.ERRNO(errno.EPERM), "ioctl", seccomp.Arg(1, seccomp.EQ, request))
    # Memory the data limit does not count: shared anonymous mappings, and MAP_GROWSDOWN ones (counted as stack).
    for flags in (MAP_SHARED | MAP_ANONYMOUS, MAP_GROWSDOWN):
        _filter.add_rule(seccomp.ERRNO(errno.EPERM), "mmap", seccomp.Arg(3, seccomp.MASKED_EQ, flags, flags))
    # glibc tries clone3 first and falls back to clone on ENOSYS, which is refused above.
    _filter.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    # Raising a limit back (prlimit64 with a new value); reading one (a null new value) stays allowed.
    _filter.add_rule(seccomp.ERRNO(errno.EPERM), "prlimit64", seccomp.Arg(2, seccomp.NE, 0))
    # Becoming dumpable again, which would open the process's memory to its neighbours.
    _filter.add_rule(seccomp.ERRNO(errno.EPERM), "prctl", seccomp.Arg(0, seccomp.EQ, PR_SET_DUMPABLE))
    # The zygote is not dumpable either, so a child cannot read its memory through /proc (there is none mounted).
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def connect(path):
    """The call's channel to the host: connected before the filter refuses sockets."""
    host = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    host.connect(path)
    return host


def confine(data_bytes, address_bytes, cpu_seconds):
    """Limits soft and hard alike (so no call raises them), then the filter, which also sets no_new_privs. The data
    limit is the call's memory; the address space's, over what the zygote had mapped, catches any mapping it misses."""
    for limit, value in (
        (resource.RLIMIT_DATA, data_bytes),
        (resource.RLIMIT_AS, address_bytes),
        (resource.RLIMIT_CPU, cpu_seconds),
        (resource.RLIMIT_FSIZE, FILE_BYTES),
        (resource.RLIMIT_NOFILE, OPEN_FILES),
        (resource.RLIMIT_NPROC, 0),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_MEMLOCK, 0),
        (resource.RLIMIT_MSGQUEUE, 0),
    ):
        resource.setrlimit(limit, (value, value))
    # Signals to itself only (abort() raises SIGABRT with tgkill): the zygote and the other processes are out of reach.
    _filter.add_rule(seccomp.ERRNO(errno.EPERM), "tgkill", seccomp.Arg(0, seccomp.NE, os.getpid()))
    _filter.load()
