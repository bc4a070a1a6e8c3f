/* test_parity.c - cloudpickle 3.x's Pickler API as engines use it: the
 * class-level dispatch_table (a ChainMap over copyreg's), replaced by a
 * subclass, by an instance, or through CPython's member descriptor (as loky
 * does), winning over our reducers; reducer_override through super(). */
#include "support.h"

TestSuite(parity, .init = cpk_py_start, .fini = cpk_py_stop);

Test(parity, class_dispatch_table_is_a_chainmap_over_copyreg)
{
    cpk_py("import ccloudpickle as cp, collections, copyreg, types\n"
           "t = cp.Pickler.dispatch_table\n"
           "assert isinstance(t, collections.ChainMap)\n"
           "assert t.maps[1] is copyreg.dispatch_table\n"
           "assert types.CodeType in t and property in t\n"
           "assert cp.CloudPickler.dispatch is t\n"
           "assert t[types.CodeType]((lambda: 1).__code__)[0].__name__ == '_code_unmarshal'\n"
           "import io\n"
           "p = cp.Pickler(io.BytesIO())\n"
           /* An instance reads its own view of it (test_dispatch_table.c). */
           "assert p.dispatch_table.maps[1:] == t.maps\n"
           "assert types.CodeType in cp.Pickler._dispatch_table\n");
}

Test(parity, subclass_chainmap_wins_over_our_reducers)
{
    cpk_py("import ccloudpickle as cp, collections, io\n"
           "def reduce_property(p):\n"
           "    return (str, ('custom property',))\n"
           "class MyPickler(cp.Pickler):\n"
           "    dispatch_table = collections.ChainMap(\n"
           "        {property: reduce_property}, cp.Pickler.dispatch_table)\n"
           "buf = io.BytesIO()\n"
           "MyPickler(buf).dump([property(), lambda: 3])\n"
           "prop, f = cp.loads(buf.getvalue())\n"
           "assert prop == 'custom property' and f() == 3\n");
}

Test(parity, subclass_plain_dict_keeps_our_reducers_for_the_rest)
{
    cpk_py("import ccloudpickle as cp, copyreg, io, types\n"
           "class Special:\n"
           "    pass\n"
           "class MyPickler(cp.Pickler):\n"
           "    dispatch_table = copyreg.dispatch_table.copy()\n"
           "    dispatch_table[Special] = lambda s: (int, (7,))\n"
           "buf = io.BytesIO()\n"
           "MyPickler(buf).dump([Special(), (lambda: 1).__code__, types.MappingProxyType({})])\n"
           "seven, code, mp = cp.loads(buf.getvalue())\n"
           "assert seven == 7 and isinstance(code, types.CodeType)\n"
           "assert isinstance(mp, types.MappingProxyType)\n");
}

Test(parity, instance_dispatch_table_assignment)
{
    cpk_py("import ccloudpickle as cp, copyreg, io\n"
           "class Special:\n"
           "    pass\n"
           "buf = io.BytesIO()\n"
           "p = cp.Pickler(buf)\n"
           "table = copyreg.dispatch_table.copy()\n"
           "table[Special] = lambda s: (str, ('instance table',))\n"
           "p.dispatch_table = table\n"
           "assert p.dispatch_table is table\n"
           "p.dump(Special())\n"
           "assert cp.loads(buf.getvalue()) == 'instance table'\n"
           "del p.dispatch_table\n"
           "assert p.dispatch_table.maps[1:] == cp.Pickler.dispatch_table.maps\n");
}

Test(parity, loky_sets_the_table_through_the_c_member)
{
    /* What loky's _LokyPickler does: copy our table, add its reducers and
     * set it through _pickle.Pickler's member descriptor. */
    cpk_py("import ccloudpickle as cp, io, types, _pickle\n"
           "class Special:\n"
           "    pass\n"
           "class LokyPickler(cp.Pickler):\n"
           "    def __init__(self, writer, reducers):\n"
           "        super().__init__(writer)\n"
           "        table = dict(self.dispatch_table)\n"
           "        table.update(reducers)\n"
           "        for klass in type(self).mro():\n"
           "            attr = getattr(klass, 'dispatch_table', None)\n"
           "            if isinstance(attr, types.MemberDescriptorType):\n"
           "                attr.__set__(self, table)\n"
           "                break\n"
           "        else:\n"
           "            raise AssertionError('no member descriptor')\n"
           "buf = io.BytesIO()\n"
           "p = LokyPickler(buf, {Special: lambda s: (str, ('loky',))})\n"
           "p.dump([Special(), lambda: 4, (lambda: 1).__code__, property()])\n"
           "s, f, code, prop = cp.loads(buf.getvalue())\n"
           "assert s == 'loky' and f() == 4\n"
           "assert isinstance(code, types.CodeType) and isinstance(prop, property)\n");
}

Test(parity, user_table_entry_for_functions_wins)
{
    cpk_py("import ccloudpickle as cp, io, types\n"
           "buf = io.BytesIO()\n"
           "p = cp.Pickler(buf)\n"
           "p.dispatch_table = {types.FunctionType: lambda f: (str, (f.__name__,))}\n"
           "def named():\n"
           "    pass\n"
           "p.dump(named)\n"
           "assert cp.loads(buf.getvalue()) == 'named'\n");
}

Test(parity, reducer_override_through_super)
{
    cpk_py("import ccloudpickle as cp, io\n"
           "calls = []\n"
           "class Tracing(cp.Pickler):\n"
           "    def reducer_override(self, obj):\n"
           "        calls.append(type(obj).__name__)\n"
           "        return super().reducer_override(obj)\n"
           "class Plain:\n"
           "    pass\n"
           "buf = io.BytesIO()\n"
           "Tracing(buf).dump([lambda: 1, Plain])\n"
           "f, P = cp.loads(buf.getvalue())\n"
           "assert f() == 1 and P.__name__ == 'Plain'\n"
           "assert 'function' in calls and 'type' in calls\n"
           "t = Tracing(io.BytesIO())\n"
           "t.note = 'kept'\n"
           "assert t.__dict__ == {'note': 'kept'}\n"
           "import ccloudpickle\n"
           "assert ccloudpickle.Pickler.reducer_override(cp.Pickler(io.BytesIO()), 1) is NotImplemented\n");
}

Test(parity, pickler_reuse_and_clear_memo)
{
    cpk_py("import ccloudpickle as cp, io\n"
           "buf = io.BytesIO()\n"
           "p = cp.Pickler(buf, protocol=3)\n"
           "shared = [1]\n"
           "p.dump(shared)\n"
           "p.dump(shared)\n"
           "p.clear_memo()\n"
           "p.dump(shared)\n"
           "buf.seek(0)\n"
           "u = cp.Unpickler(buf)\n"
           "a, b = u.load(), u.load()\n"
           "assert a is b\n"
           "c = cp.Unpickler(io.BytesIO(buf.getvalue()[buf.tell():])).load()\n"
           "assert c == [1]\n");
}

Test(parity, persistent_id_and_persistent_load)
{
    cpk_py("import ccloudpickle as cp, io\n"
           "class DB:\n"
           "    pass\n"
           "db = DB()\n"
           "class P(cp.Pickler):\n"
           "    def persistent_id(self, obj):\n"
           "        return 'db' if obj is db else None\n"
           "class U(cp.Unpickler):\n"
           "    def persistent_load(self, pid):\n"
           "        assert pid == 'db'\n"
           "        return db\n"
           "buf = io.BytesIO()\n"
           "P(buf).dump([db, lambda: db])\n"
           "buf.seek(0)\n"
           "x, f = U(buf).load()\n"
           "assert x is db and f() is db\n");
}
