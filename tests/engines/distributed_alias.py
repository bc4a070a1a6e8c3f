"""distributed through the cloudpickle alias (tests/engines/test_engine_distributed.c).

Run with CCLOUDPICKLE_ALIAS=1 by a Python whose site-packages has
ccloudpickle and ccloudpickle-alias.pth (tests/engines/alias_venv.py) and
Debian's python3-distributed: a LocalCluster of two worker processes on
loopback, no dashboard. Checks that the workers pickle with ccloudpickle,
that lambdas, closures and classes defined in __main__ travel both ways,
that a dynamic class comes back as the same class, that
register_pickle_by_value is honoured for a module only this process can
import, and that no worker process is left once the cluster is closed.
Prints "ok" at the end; any failure is an exception (exit status 1).
"""
import importlib.util
import os
import shutil
import sys
import tempfile
import time


class Point:
    """A class of __main__: the spawned workers import this file as
    __mp_main__ and have their own Point, which is not this one."""

    def __init__(self, x):
        self.x = x

    def norm2(self):
        return self.x * self.x


def make_adder(n):
    def add(x):
        return x + n
    return add


def worker_facts():
    import ccloudpickle
    import distributed.protocol.pickle as dpp
    cp = sys.modules.get("cloudpickle")
    return {
        "pid": os.getpid(),
        "alias_version": getattr(cp, "__ccloudpickle_version__", None),
        "distributed_uses_ccloudpickle": dpp.cloudpickle.dumps is ccloudpickle.dumps,
        "gte_20": dpp.CLOUDPICKLE_GTE_20,
        "has_local_module": importlib.util.find_spec("cpk_local_mod") is not None,
    }


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purpose only once reaped; distributed reaps.
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def main():
    assert os.environ.get("CCLOUDPICKLE_ALIAS") == "1"
    # The .pth hook's finder, not an explicit install_alias().
    assert "ccloudpickle" not in sys.modules
    import cloudpickle
    import ccloudpickle
    assert cloudpickle.dumps is ccloudpickle.dumps
    import distributed.protocol.pickle as dpp
    assert dpp.cloudpickle is cloudpickle and dpp.CLOUDPICKLE_GTE_20

    class Local:
        """Defined only in this process's __main__ run."""

        def __init__(self, v):
            self.v = v

    # A module that exists only in this process's private directory
    # (under TMPDIR, which the test points into its own directory),
    # removed at the end whatever happens.
    moddir = tempfile.mkdtemp(prefix="cpk-local-")
    try:
        with open(os.path.join(moddir, "cpk_local_mod.py"), "w") as f:
            f.write("FACTOR = 7\n\ndef scale(x):\n    return x * FACTOR\n")
        pids = run_cluster(ccloudpickle, cloudpickle, Local, moddir)
    finally:
        shutil.rmtree(moddir, ignore_errors=True)

    # Closed by the with blocks: no worker process is left.
    deadline = time.monotonic() + 30
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p for p in pids if alive(p)]
    assert not left, "worker processes left: %s" % left
    import multiprocessing
    assert not [c for c in multiprocessing.active_children()
                if c.pid in pids], multiprocessing.active_children()
    print("ok")


def run_cluster(ccloudpickle, cloudpickle, Local, moddir):
    """The cluster's checks; the workers' pids."""
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                      host="127.0.0.1", dashboard_address=None,
                      silence_logs=40) as cluster, \
            Client(cluster) as client:
        facts = client.run(worker_facts)
        assert len(facts) == 2, facts
        pids = [f["pid"] for f in facts.values()]
        assert os.getpid() not in pids
        for f in facts.values():
            assert f["alias_version"] == ccloudpickle.__version__, f
            assert f["distributed_uses_ccloudpickle"] and f["gte_20"], f
            assert not f["has_local_module"], f
        for addr in facts:
            assert addr.startswith("tcp://127.0.0.1:"), addr

        # Lambdas and closures, to the workers and back.
        assert client.submit(lambda x: x * 2, 21).result() == 42
        add5 = make_adder(5)
        assert client.gather(client.map(add5, range(4))) == [5, 6, 7, 8]
        add3 = client.submit(make_adder, 3).result()
        assert add3(1) == 4

        # Dynamic classes keep their identity when they come back.
        r = client.submit(lambda p: Point(p.x + 1), Point(2)).result()
        assert type(r) is Point, (type(r), Point)
        assert r.norm2() == 9
        assert client.submit(lambda: Point).result() is Point
        loc = client.submit(lambda o: Local(o.v * 2), Local(4)).result()
        assert type(loc) is Local and loc.v == 8

        # register_pickle_by_value: the module travels with the function.
        sys.path.insert(0, moddir)
        import cpk_local_mod
        sys.path.remove(moddir)
        cloudpickle.register_pickle_by_value(cpk_local_mod)
        assert "cpk_local_mod" in ccloudpickle.list_registry_pickle_by_value()
        assert client.submit(cpk_local_mod.scale, 6).result() == 42
        assert not any(f["has_local_module"]
                       for f in client.run(worker_facts).values())
    return pids


if __name__ == "__main__":
    main()
