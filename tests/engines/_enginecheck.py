"""What the engine drivers (tests/engines/*.py) share.

The drivers print one `ok NAME` line per check that passed and end with
`descendants PID...`: every process below the driver seen while workers
ran. The Criterion test (tests/test_engine_*.c) asserts the `ok` lines and
that none of those processes is left once the driver has exited.
"""
import os
import sys

_seen = set()


def _children_map():
    kids = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry, "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses.
        fields = stat[stat.rindex(b")") + 2:].split()
        kids.setdefault(int(fields[1]), []).append(int(entry))
    return kids


def descendants(pid=None):
    """The pids of every live process below `pid` (default: this one)."""
    kids = _children_map()
    todo, found = [pid or os.getpid()], []
    while todo:
        for child in kids.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return found


def record():
    """Remember the processes below this one now (call while workers run);
    returns how many there are."""
    now = descendants()
    _seen.update(now)
    return len(now)


def ok(name):
    print("ok", name, flush=True)


def finish():
    """Print the processes recorded (the C test checks they are gone)."""
    record()
    print("descendants", " ".join(str(p) for p in sorted(_seen)), flush=True)
    sys.stdout.flush()
