/* test_dispatch_table.c - entries added to a Pickler instance's
 * dispatch_table (p.dispatch_table[T] = reducer, as cloudpickle users
 * write it) are honoured by that Pickler, for any type, ours or not, and
 * by no other Pickler: not the class default, not copyreg's table, not
 * the next Pickler made. test_parity.c covers tables set as a whole. */
#include "support.h"

TestSuite(dispatch_table, .init = cpk_py_start, .fini = cpk_py_stop);

Test(dispatch_table, entry_added_to_an_instance_is_honoured)
{
    cpk_py("import ccloudpickle as cp, io, types\n"
           "class Foo:\n"
           "    pass\n"
           "def reduce_foo(obj):\n"
           "    return (str, ('reduced Foo',))\n"
           "buf = io.BytesIO()\n"
           "p = cp.Pickler(buf)\n"
           "p.dispatch_table[Foo] = reduce_foo\n"
           "assert p.dispatch_table[Foo] is reduce_foo\n"
           "assert p.dispatch_table is p.dispatch_table\n"
           "p.dump([Foo(), Foo()])\n"
           "assert cp.loads(buf.getvalue()) == ['reduced Foo'] * 2\n"
           /* Our own types and functions too, for this instance. */
           "buf = io.BytesIO()\n"
           "q = cp.Pickler(buf)\n"
           "q.dispatch_table[property] = lambda pr: (str, ('a property',))\n"
           "q.dispatch_table[types.FunctionType] = lambda f: (str, (f.__name__,))\n"
           "def named():\n"
           "    pass\n"
           "q.dump([property(), named, (lambda: 1).__code__])\n"
           "prop, name, code = cp.loads(buf.getvalue())\n"
           "assert prop == 'a property' and name == 'named'\n"
           "assert isinstance(code, types.CodeType)\n");
}

Test(dispatch_table, entry_does_not_leak_to_others)
{
    cpk_py("import ccloudpickle as cp, copyreg, io\n"
           "class Foo:\n"
           "    pass\n"
           "before = dict(cp.Pickler.dispatch_table)\n"
           "p = cp.Pickler(io.BytesIO())\n"
           "p.dispatch_table[Foo] = lambda o: (str, ('reduced',))\n"
           "p.dispatch_table[property] = lambda o: (str, ('reduced',))\n"
           "assert Foo not in cp.Pickler.dispatch_table\n"
           "assert dict(cp.Pickler.dispatch_table) == before\n"
           "assert Foo not in copyreg.dispatch_table\n"
           "q = cp.Pickler(io.BytesIO())\n"
           "assert Foo not in q.dispatch_table\n"
           "assert q.dispatch_table is not p.dispatch_table\n"
           "assert isinstance(cp.loads(cp.dumps(Foo())), Foo)\n"
           "assert isinstance(cp.loads(cp.dumps(property())), property)\n"
           "buf = io.BytesIO()\n"
           "cp.Pickler(buf).dump([Foo(), property()])\n"
           "foo, prop = cp.loads(buf.getvalue())\n"
           "assert isinstance(foo, Foo) and isinstance(prop, property)\n");
}

Test(dispatch_table, instance_view_reads_as_the_default)
{
    cpk_py("import ccloudpickle as cp, collections, copyreg, io, types\n"
           "t = cp.Pickler.dispatch_table\n"
           "p = cp.Pickler(io.BytesIO())\n"
           "v = p.dispatch_table\n"
           "assert isinstance(v, collections.ChainMap)\n"
           "assert v.maps[0] == {} and v.maps[1:] == t.maps\n"
           "assert all(a is b for a, b in zip(v.maps[1:], t.maps))\n"
           "assert dict(v) == dict(t)\n"
           "assert v[types.CodeType] is t[types.CodeType]\n"
           /* Deleting the entry, or the table, goes back to the default. */
           "class Foo:\n"
           "    pass\n"
           "buf = io.BytesIO()\n"
           "p = cp.Pickler(buf)\n"
           "p.dispatch_table[Foo] = lambda o: (str, ('x',))\n"
           "del p.dispatch_table[Foo]\n"
           "p.dump(Foo())\n"
           "assert isinstance(cp.loads(buf.getvalue()), Foo)\n"
           "buf = io.BytesIO()\n"
           "p = cp.Pickler(buf)\n"
           "p.dispatch_table[Foo] = lambda o: (str, ('x',))\n"
           "del p.dispatch_table\n"
           "assert Foo not in p.dispatch_table\n"
           "p.dump(Foo())\n"
           "assert isinstance(cp.loads(buf.getvalue()), Foo)\n"
           /* Assigning the view back to itself keeps it. */
           "p.dispatch_table[Foo] = lambda o: (str, ('y',))\n"
           "p.dispatch_table = p.dispatch_table\n"
           "buf = io.BytesIO()\n"
           "p.__init__(buf)\n"
           "p.dump(Foo())\n"
           "assert cp.loads(buf.getvalue()) == 'y'\n");
}

Test(dispatch_table, set_table_wins_over_the_view)
{
    cpk_py("import ccloudpickle as cp, copyreg, io\n"
           "class Foo:\n"
           "    pass\n"
           "buf = io.BytesIO()\n"
           "p = cp.Pickler(buf)\n"
           "p.dispatch_table[Foo] = lambda o: (str, ('view',))\n"
           "table = copyreg.dispatch_table.copy()\n"
           "table[Foo] = lambda o: (str, ('set',))\n"
           "p.dispatch_table = table\n"
           "assert p.dispatch_table is table\n"
           "p.dump(Foo())\n"
           "assert cp.loads(buf.getvalue()) == 'set'\n");
}

Test(dispatch_table, view_made_once_under_threads)
{
    /* A thread that reads p.dispatch_table first is paused inside
     * ChainMap.new_child() while another thread reads it too: both must
     * get the same view, or entries added to one are lost. The same for
     * the class-level table made on first use. */
    cpk_py("import ccloudpickle as cp, io, sys, threading\n"
           "def race(read):\n"
           "    inside, done = threading.Event(), threading.Event()\n"
           "    got = {}\n"
           "    def prof(frame, event, arg):\n"
           "        if (event == 'call' and frame.f_code.co_name == '__init__'\n"
           "                and 'collections' in frame.f_code.co_filename\n"
           "                and not inside.is_set()):\n"
           "            inside.set()\n"
           "            done.wait(5)\n"
           "    def first():\n"
           "        sys.setprofile(prof)\n"
           "        try:\n"
           "            got['first'] = read()\n"
           "        finally:\n"
           "            sys.setprofile(None)\n"
           "    t = threading.Thread(target=first)\n"
           "    t.start()\n"
           "    assert inside.wait(5), 'ChainMap.__init__ never ran'\n"
           "    got['second'] = read()\n"
           "    done.set()\n"
           "    t.join()\n"
           "    return got['first'], got['second']\n"
           "a, b = race(lambda: cp.Pickler.dispatch_table)\n"
           "assert a is b is cp.Pickler.dispatch_table\n"
           "p = cp.Pickler(io.BytesIO())\n"
           "a, b = race(lambda: p.dispatch_table)\n"
           "assert a is b is p.dispatch_table\n");
}
