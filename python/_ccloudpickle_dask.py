"""The dask back end of ``cloudpickle-load --map --dask`` (cli/map/mapdask.c).

The program decodes the records and renders every result itself, as it
does for ``-j N``; this module only moves calls to a ``distributed``
cluster and their outcomes back:

- :class:`Runner` connects to a scheduler (or starts a loopback
  ``LocalCluster`` for ``local[:N]``), checks that every worker can import
  ccloudpickle and load the function (each worker loads the pickle bytes
  once and keeps the function), and sends the pickle to the cluster once
  (scattered to every worker, so that a worker that joins later finds it).
- :meth:`Runner.submit` sends one batch of calls as one task;
  :meth:`Runner.next` hands back the outcomes of the oldest batch, in
  input order. The program bounds how many batches are in flight.

A worker lost while it runs a task has the task run again elsewhere by the
scheduler, up to ``distributed.scheduler.allowed-failures`` times (3 by
default); a task that still fails, and a result or exception that cannot
travel back, become failures of the records of that batch.

Only imported by the program when ``--dask`` is given; on the workers only
:func:`_run` and :func:`_preload` run.
"""

import collections
import hashlib
import logging
import os
import sys
import time

# digest of a pickle -> the function loaded from it (on a worker)
_loaded = {}

_MISSING = ("the distributed package is not importable (install "
            "python3-distributed or pip install distributed)")


class Refusal(Exception):
    """The run cannot start: args are (exit status, message)."""


class RemoteError(Exception):
    """An exception from a worker that could not travel back as itself:
    str() is 'type: message'."""


def _function(digest, data):
    fn = _loaded.get(digest)
    if fn is None:
        import ccloudpickle

        fn = _loaded[digest] = ccloudpickle.loads(data)
    return fn


def _preload(digest, data):
    """On a worker, before any record: load the function (the error, if
    any, goes back to the program)."""
    _function(digest, data)
    return None


def _failure(exc):
    """(1, exc, traceback as tblib's dict or None), the frame of _run
    left out."""
    tb = exc.__traceback__
    tb = tb.tb_next if tb is not None else None
    info = None
    if tb is not None:
        try:
            import tblib

            info = tblib.Traceback(tb).to_dict()
        except Exception:
            info = None
    return (1, exc, info)


def _pack(outcomes):
    """The outcomes as one ccloudpickle pickle; those that cannot be
    pickled are replaced by a RemoteError saying why."""
    import ccloudpickle

    try:
        return ccloudpickle.dumps(outcomes, protocol=5)
    except Exception:
        pass
    fixed = []
    for o in outcomes:
        try:
            ccloudpickle.dumps(o, protocol=5)
            fixed.append(o)
        except Exception as why:
            if o[0] == 0:
                err = RemoteError("cannot send the result of type %r back "
                                  "from the worker: %s"
                                  % (type(o[1]).__name__, why))
                fixed.append((1, err, None))
            else:
                err = RemoteError("%s: %s" % (_type_name(o[1]), o[1]))
                fixed.append((1, err, o[2]))
    return ccloudpickle.dumps(fixed, protocol=5)


def _type_name(exc):
    t = type(exc)
    if t.__module__ == "builtins":
        return t.__qualname__
    return "%s.%s" % (t.__module__, t.__qualname__)


def _run(data, digest, calls):
    """One task: the calls (args, kwargs or None) of a batch of records,
    in order. Returns (seconds spent, pickled outcomes): (0, result) or
    (1, exception, traceback) per call; SystemExit is an outcome too (the
    program decides what it means)."""
    fn = _function(digest, data)
    out = []
    t0 = time.perf_counter()
    for args, kwargs in calls:
        try:
            out.append((0, fn(*args, **kwargs) if kwargs else fn(*args)))
        except (Exception, SystemExit) as exc:
            out.append(_failure(exc))
    return time.perf_counter() - t0, _pack(out)


# The check every worker runs first: its Python must be the program's
# (code objects travel as that version's marshal data) and ccloudpickle
# and this module importable.
_CHECK = """\
import sys
if sys.version_info[:2] != %r:
    raise RuntimeError("runs Python %%d.%%d, the program %d.%d: run the "
                       "workers with the program's Python"
                       %% sys.version_info[:2])
import ccloudpickle, _ccloudpickle_dask
""" % ((sys.version_info[:2],) + tuple(sys.version_info[:2]))


def _real_python():
    """multiprocessing's spawn needs an interpreter, which the program is
    not: point it at the program's Python (sys.executable, set by the
    program to that Python's bin/python3.X)."""
    import multiprocessing

    exe = sys.executable
    if exe and os.path.basename(exe).startswith("python"):
        multiprocessing.set_executable(exe)


def _line(exc):
    text = str(exc)
    name = _type_name(exc)
    return "%s: %s" % (name, text) if text else name


class Runner:
    """Batches of calls on a cluster, results in submission order."""

    def __init__(self, address, data, window):
        try:
            import distributed
        except ImportError:
            raise Refusal(2, _MISSING) from None
        self._distributed = distributed
        self.cluster = None
        self.client = None
        self.pending = collections.deque()
        self.tasks = 0
        self.spent = 0.0
        self.started = None  # the first submit
        try:
            self._start(address, data, window)
        except BaseException:
            self.close()
            raise

    def _start(self, address, data, window):
        distributed = self._distributed
        if address == "local" or address.startswith("local:"):
            n = address[6:] or str(os.cpu_count() or 1)
            if not n.isdigit() or not 1 <= int(n) <= 256:
                raise Refusal(2, "invalid number of workers '%s' in "
                              "'local:N' (1 to 256)" % n)
            _real_python()
            try:
                # workers' own INFO and WARNING lines (stale directories
                # purged, a slow shutdown) are no business of the run's
                self.cluster = distributed.LocalCluster(
                    n_workers=int(n), threads_per_worker=1, processes=True,
                    host="127.0.0.1", dashboard_address=None,
                    silence_logs=logging.ERROR)
            except Exception as exc:
                raise Refusal(5, "cannot start a local cluster: %s"
                              % _line(exc)) from None
            address = self.cluster.scheduler_address
        elif "://" not in address and ":" not in address:
            raise Refusal(2, "invalid address '%s' (tcp://HOST:PORT, "
                          "HOST:PORT, or local[:N])" % address)
        try:
            self.client = distributed.Client(address, timeout=10,
                                             set_as_default=False)
            self.client.wait_for_workers(1, timeout=30)
        except (OSError, TimeoutError, ValueError) as exc:
            raise Refusal(5, "cannot use the cluster at %s: %s"
                          % (address, _line(exc))) from None
        self.address = address
        self.digest = hashlib.sha256(data).hexdigest()
        self._check(data)
        self.data = self.client.scatter(bytes(data), broadcast=True,
                                        hash=False)
        threads = sum(self.client.nthreads().values()) or 1
        self.threads = threads
        self.window = window if window > 0 else 3 * threads

    def _check(self, data):
        """Every worker can import ccloudpickle and load the function,
        or a Refusal naming the first that cannot."""
        got = self.client.run(exec, _CHECK, {}, on_error="return")
        for worker, res in sorted(got.items()):
            if isinstance(res, ImportError):
                raise Refusal(4, "worker %s cannot import ccloudpickle "
                              "(%s): install ccloudpickle in the workers' "
                              "Python (pip install ccloudpickle), or put "
                              "it on their PYTHONPATH"
                              % (worker, _line(res)))
            if isinstance(res, BaseException):
                raise Refusal(4, "worker %s: %s" % (worker, _line(res)))
        got = self.client.run(_preload, self.digest, bytes(data),
                              on_error="return")
        for worker, res in sorted(got.items()):
            if isinstance(res, BaseException):
                raise Refusal(4, "worker %s cannot load the function (%s)"
                              % (worker, _line(res)))

    def submit(self, calls):
        """Send one batch of calls (a list of (args, kwargs or None))."""
        if self.started is None:
            self.started = time.perf_counter()
        fut = self.client.submit(_run, self.data, self.digest, calls,
                                 pure=False)
        self.pending.append((fut, len(calls)))
        self.tasks += 1

    def next(self, timeout):
        """The oldest batch's outcomes, once it is done: (seconds per
        call, [(0, result) or (1, exception, traceback or None)...]);
        None if it is not done within `timeout` seconds (None: wait)."""
        fut, n = self.pending[0]
        if not fut.done():
            try:
                fut.result(timeout=timeout)
            except Exception:
                pass  # not done yet, or failed: said below
            if not fut.done():
                return None
        self.pending.popleft()
        try:
            spent, blob = fut.result()
        except Exception as exc:
            # the task itself failed: a worker lost too often
            # (KilledWorker), or cancelled by the scheduler
            return 0.0, [(1, exc, None)] * n
        self.spent += spent
        import ccloudpickle

        try:
            outcomes = ccloudpickle.loads(blob)
        except Exception as exc:
            return spent / n, [(1, exc, None)] * n
        return spent / n, [_with_traceback(o) for o in outcomes]

    def busy(self):
        """The share of the workers' time spent in the function since
        the start (0 to 1)."""
        if self.started is None:
            return 0.0
        wall = time.perf_counter() - self.started
        return self.spent / (wall * self.threads) if wall > 0 else 0.0

    def close(self):
        """Cancel what is in flight, disconnect, stop a local cluster."""
        if os.environ.get("CLOUDPICKLE_DASK_STATS") and self.client:
            sys.stderr.write("dask: %d tasks, workers busy %.0f%%\n"
                             % (self.tasks, 100 * self.busy()))
        futs = [f for f, _ in self.pending]
        self.pending.clear()
        client, self.client = self.client, None
        cluster, self.cluster = self.cluster, None
        if client is not None:
            try:
                if futs:
                    client.cancel(futs)
            except Exception:
                pass
            try:
                client.close()
            except Exception:
                pass
        if cluster is not None:
            try:
                cluster.close()
            except Exception:
                pass


def _with_traceback(o):
    if o[0] != 0 and o[2] is not None:
        try:
            import tblib

            return (1, o[1], tblib.Traceback.from_dict(o[2]).as_traceback())
        except Exception:
            return (1, o[1], None)
    return o
