"""A distributed cluster mixing the cloudpickle alias and stock cloudpickle
(tests/engines/test_mixed_cluster.c).

    python mixed_cluster.py SIDE WORKER_PYTHON [NAME=VALUE ...]

This process is the client (and runs the scheduler); it starts one
worker, `WORKER_PYTHON -m distributed.cli.dask_worker`, on 127.0.0.1 with
the NAME=VALUE entries added to its environment ("NAME=" removes NAME).
SIDE says which side runs ccloudpickle's alias and in which compat mode:
"client:cloudpickle3" (this process has CCLOUDPICKLE_ALIAS=cloudpickle3,
the worker only stock cloudpickle), "worker:cloudpickle3" (the reverse),
and so on. Lambdas, closures, classes of __main__ and their instances
travel both ways, client.run's check included. Prints "ok" at the end;
any failure is an exception (exit status 1). The test kills this
process's group afterwards, whatever happened.
"""
import os
import subprocess
import sys
import time

# What a worker says about itself: builtins.eval travels by reference
# with stock pickle, so this runs on a worker that has no ccloudpickle.
FACTS = ("{'ccloudpickle': __import__('importlib.util').util"
         ".find_spec('ccloudpickle') is not None, "
         "'cloudpickle': __import__('cloudpickle').__version__, "
         "'compat': getattr(__import__('cloudpickle'), "
         "'__ccloudpickle_compat__', 'stock')}")


class Point:
    """A class of __main__: the worker has no such module, so it and its
    instances travel by value."""

    def __init__(self, x):
        self.x = x

    def norm2(self):
        return self.x * self.x


def make_adder(n):
    def add(x):
        return x + n
    return add


def make_local_class(v):
    """Returns an instance of a class made on the worker: by value back."""
    class Made:
        def __init__(self, v):
            self.v = v

        def double(self):
            return self.v * 2
    return Made(v)


def start_worker(python, address, env_entries):
    env = dict(os.environ)
    for entry in env_entries:
        name, _, value = entry.partition("=")
        if value:
            env[name] = value
        else:
            env.pop(name, None)
    cmd = [python, "-m", "distributed.cli.dask_worker", address,
           "--nthreads", "1", "--no-nanny", "--no-dashboard",
           "--host", "127.0.0.1", "--name", "mixed-worker"]
    return subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL)


def check(client, side, target):
    facts = client.run(eval, FACTS)
    assert len(facts) == 1, facts
    (worker,) = facts.values()
    import cloudpickle
    here = {"ccloudpickle": "ccloudpickle" in sys.modules or
            hasattr(cloudpickle, "__ccloudpickle_version__"),
            "compat": getattr(cloudpickle, "__ccloudpickle_compat__",
                              "stock")}
    if side == "client":
        assert here == {"ccloudpickle": True, "compat": target}, here
        assert worker["ccloudpickle"] is False, worker
        assert worker["compat"] == "stock", worker
        assert "ccloudpickle" not in worker["cloudpickle"], worker
        import ccloudpickle
        assert ccloudpickle.check_workers(client) == {}
    else:
        assert here["compat"] == "stock", here
        assert not here["ccloudpickle"], here
        assert worker["ccloudpickle"] is True, worker
        assert worker["compat"] == target, worker
        assert "+ccloudpickle." in worker["cloudpickle"], worker

    # The documented check of a worker, by value.
    assert set(client.run(lambda: 1).values()) == {1}
    # Lambdas and closures, to the worker and back.
    assert client.submit(lambda x: x * 2, 21).result() == 42
    add5 = make_adder(5)
    assert client.gather(client.map(add5, range(4))) == [5, 6, 7, 8]
    add3 = client.submit(make_adder, 3).result()
    assert add3(1) == 4
    # Classes of __main__ and their instances both ways.
    r = client.submit(lambda p: Point(p.x + 1), Point(2)).result()
    assert type(r) is Point and r.norm2() == 9, r
    made = client.submit(make_local_class, 4).result()
    assert made.double() == 8 and type(made).__name__ == "Made"


def main(argv):
    side, target = argv[1].split(":")
    worker_python = argv[2]
    if side == "client":
        assert os.environ.get("CCLOUDPICKLE_ALIAS") == target
    else:
        assert "CCLOUDPICKLE_ALIAS" not in os.environ
        import importlib.util
        assert importlib.util.find_spec("ccloudpickle") is None
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=0, processes=False, host="127.0.0.1",
                      protocol="tcp://",
                      dashboard_address=None, silence_logs=40) as cluster:
        proc = start_worker(worker_python, cluster.scheduler_address,
                            argv[3:])
        try:
            with Client(cluster) as client:
                deadline = time.monotonic() + 60
                while not client.scheduler_info()["workers"]:
                    assert proc.poll() is None, "the worker exited"
                    assert time.monotonic() < deadline, "no worker in 60 s"
                    time.sleep(0.05)
                check(client, side, target)
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    print("ok")


if __name__ == "__main__":
    main(sys.argv)
