"""mpi4py with ccloudpickle as MPI.pickle, two ranks (run under mpirun).

Rank 0 sends a lambda, a closure, a class of __main__ and an instance to
rank 1, which calls them and answers with its own lambda and a new
instance; rank 0 checks the answers (the class comes back as the same
class). Plain MPI.pickle refuses the lambda first, so the round trip
proves ccloudpickle carried it. Rank 0 prints the `ok` lines and both
ranks' pids.
"""
import os
import sys

from mpi4py import MPI

import ccloudpickle

import _enginecheck as check


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def norm1(self):
        return abs(self.x) + abs(self.y)


def make_adder(n):
    def add(x):
        return x + n
    return add


def main():
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    assert comm.Get_size() == 2, comm.Get_size()
    if rank == 0:
        try:
            MPI.pickle.dumps(lambda: 1)
        except Exception:
            pass
        else:
            raise AssertionError("plain MPI.pickle pickled a lambda")
        check.ok("plain-refuses")
    MPI.pickle.__init__(ccloudpickle.dumps, ccloudpickle.loads)
    if rank == 0:
        comm.send((lambda x: x * 2, make_adder(5), Point, Point(1, 2)), dest=1, tag=1)
        f_back, p_back, cls_back, pid1 = comm.recv(source=1, tag=2)
        assert f_back(4) == 12
        assert type(p_back) is Point and p_back.norm1() == 30
        assert cls_back is Point
        check.ok("send-recv-roundtrip")
        # The collective path pickles too.
        got = comm.bcast(make_adder(100), root=0)
        assert got(1) == 101
        gathered = comm.gather(lambda: 0, root=0)
        assert [g() for g in gathered] == [0, 1]
        check.ok("bcast-gather")
        check._seen.update([os.getpid(), pid1])
        comm.Barrier()
        print("descendants", os.getpid(), pid1, flush=True)
    else:
        f, add5, cls, p = comm.recv(source=0, tag=1)
        assert f(3) == 6 and add5(1) == 6 and cls is type(p) and p.norm1() == 3
        comm.send((lambda x: x * 3, cls(10, -20), cls, os.getpid()), dest=0, tag=2)
        got = comm.bcast(None, root=0)
        assert got(2) == 102
        comm.gather(lambda: 1, root=0)
        comm.Barrier()


if __name__ == "__main__":
    main()
