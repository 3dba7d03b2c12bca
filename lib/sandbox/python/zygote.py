# The zygote of one Python pool slot, inside bubblewrap (lib/sandbox/python/pool.ts starts it). It imports what
# calls use, then forks one child per call and runs no tool code itself. It never reads a job either: each child
# fetches its job from the host over the host's socket, after it has confined itself. So the memory a child starts
# from holds no caller's code or input, and nothing a call does (to modules, to memory, to files in /tmp) outlives
# its child: the zygote empties the writable /tmp after each child, before the next one is made.
#
# Control lines on stdin and stdout, JSON, one per line:
#   host → zygote  {"spare": id, "token": "...", "dataBytes": n, "addressBytes": n, "cpuSeconds": n}
#                                                                                  fork a child for the next call
#                  {"kill": id}                                                   end that child now
#   zygote → host  {"ready": true}
#                  {"exited": id, "code": n | null, "signal": n | null}           the child is gone, /tmp is empty
import json
import os
import selectors
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402 (after the path: the harness lives beside this file)
import jail  # noqa: E402

SOCKET_PATH = sys.argv[1]
SCRATCH = "/tmp"
CONTROL_IN = 0


def main():
    harness.configure(sys.argv[2])
    jail.prepare()
    _empty(SCRATCH)
    # Objects the zygote made live in the permanent generation: a child's collections do not touch (and copy) them.
    import gc

    gc.freeze()
    selector = selectors.DefaultSelector()
    selector.register(CONTROL_IN, selectors.EVENT_READ, None)
    children = {}  # pidfd → (job id, pid)
    by_job = {}  # job id → pid
    unread = b""
    _say({"ready": True})
    while True:
        for key, _ in selector.select():
            if key.data is None:
                # Every whole line that came, not one: the host often writes two at once (a fork and a kill).
                chunk = os.read(CONTROL_IN, 1 << 16)
                if not chunk:
                    return  # the host is gone (bubblewrap's --die-with-parent ends the children too)
                *lines, unread = (unread + chunk).split(b"\n")
                for line in lines:
                    command = json.loads(line)
                    if "spare" in command:
                        pid = _fork(command)
                        pidfd = os.pidfd_open(pid)
                        children[pidfd] = (command["spare"], pid)
                        by_job[command["spare"]] = pid
                        selector.register(pidfd, selectors.EVENT_READ, pidfd)
                    elif "kill" in command and command["kill"] in by_job:
                        os.kill(by_job[command["kill"]], signal.SIGKILL)
            else:
                pidfd = key.data
                selector.unregister(pidfd)
                os.close(pidfd)
                job, pid = children.pop(pidfd)
                by_job.pop(job, None)
                _, status = os.waitpid(pid, 0)
                _empty(SCRATCH)
                code = os.waitstatus_to_exitcode(status)
                _say({"exited": job, "code": code if code >= 0 else None, "signal": -code if code < 0 else None})


def _fork(command):
    pid = os.fork()
    if pid != 0:
        return pid
    # The child: the control pipes are the zygote's, not the call's.
    code = 70
    try:
        devnull = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        # Nor the zygote's epoll instance, shared across fork (a call could change what the zygote listens to), nor
        # its pidfds of other children: only the call's own connection is open past here.
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        host = jail.connect(SOCKET_PATH)
        jail.confine(command["dataBytes"], command["addressBytes"], command["cpuSeconds"])
        harness.serve(host, command["token"])
        code = 0
    finally:
        os._exit(code)


def _say(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _empty(folder):
    """Remove everything in the folder, whatever a call did to its modes, however deep: each step is relative to the
    folder it is in (a path past PATH_MAX is fine), and no recursion. A failure here ends the zygote, and with it the
    slot: the host starts another rather than let a call's files reach the next one."""
    os.chdir(folder)
    entered = []
    while True:
        os.chmod(".", 0o700)
        inner = None
        for entry in os.scandir("."):
            if entry.is_dir(follow_symlinks=False):
                inner = entry.name
            else:
                os.unlink(entry.name)
        if inner is not None:
            os.chmod(inner, 0o700)
            os.chdir(inner)
            entered.append(inner)
        elif entered:
            os.chdir("..")
            os.rmdir(entered.pop())
        else:
            return


if __name__ == "__main__":
    main()
