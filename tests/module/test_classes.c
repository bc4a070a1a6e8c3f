/* test_classes.c - dynamic classes by value: plain, __slots__, metaclasses,
 * ABCs, typing.Generic, namedtuples, dataclasses, super(), descriptors,
 * annotations, instances, self-reference. Each is pickled here and used in
 * a fresh interpreter where __main__'s code does not exist, at protocols
 * 2 and 5. */
#include "support.h"

TestSuite(classes, .init = cpk_py_start, .fini = cpk_py_stop);

Test(classes, plain_class_and_instance)
{
    cpk_py_file("plain_class_and_instance.py");
    cpk_fresh_protos("[Point, Point(3, 4)]",
                     "P, p = obj\n"
                     "assert isinstance(p, P) and p.norm2() == 25\n"
                     "assert P(1, 2) == P(1, 2) and P.dims == 2\n"
                     "assert P.__doc__ == 'A point.' and P.__hash__ is None\n"
                     "assert P.__module__ == '__main__'\n"
                     "assert P.__qualname__ == 'Point'\n");
}

Test(classes, nested_class_keeps_qualname)
{
    cpk_py("def make():\n"
           "    class Inner:\n"
           "        def who(self):\n"
           "            return type(self).__qualname__\n"
           "    return Inner\n"
           "Inner = make()\n");
    cpk_fresh_protos("Inner", "assert obj().who() == 'make.<locals>.Inner'\n");
}

Test(classes, slots_stay_slots)
{
    cpk_py_file("slots_stay_slots.py");
    cpk_fresh_protos("[S, S(), One]",
                     cpk_py_text("slots_stay_slots_fresh.py"));
}

Test(classes, metaclass)
{
    cpk_py_file("metaclass.py");
    cpk_fresh_protos("Thing",
                     "assert type(obj).__name__ == 'Registry'\n"
                     "assert obj.describe() == 'I am Thing' and obj.value == 3\n"
                     "assert 'Thing' in type(obj).made\n");
}

Test(classes, abc_keeps_registered_subclasses_and_drops_caches)
{
    cpk_py_file("abc_keeps_registered_subclasses_and_drops_caches.py");
    cpk_fresh_protos("[Shape, Square, Duck]", cpk_py_text(
        "abc_keeps_registered_subclasses_and_drops_caches_fresh.py"));
}

Test(classes, generic_subclass_keeps_orig_bases)
{
    cpk_py_file("generic_subclass_keeps_orig_bases.py");
    cpk_fresh_protos(
        "[Box, IntBox, Box[str]]",
        cpk_py_text("generic_subclass_keeps_orig_bases_fresh.py"));
}

Test(classes, namedtuples)
{
    cpk_py("import collections, typing\n"
           "Pair = collections.namedtuple('Pair', 'left right')\n"
           "class Row(typing.NamedTuple):\n"
           "    name: str\n"
           "    size: int = 0\n"
           "    def label(self):\n"
           "        return f'{self.name}:{self.size}'\n");
    cpk_fresh_protos("[Pair, Pair(1, 2), Row, Row('a', 3)]",
                     "Pair, p, Row, r = obj\n"
                     "assert p == (1, 2) and p.right == 2 and isinstance(p, Pair)\n"
                     "assert Pair._fields == ('left', 'right')\n"
                     "assert Pair(left=5, right=6)._asdict() == {'left': 5, 'right': 6}\n"
                     "assert r.label() == 'a:3' and Row('b').size == 0\n"
                     "assert Row._fields == ('name', 'size')\n"
                     "assert Row.__annotations__ == {'name': str, 'size': int}\n");
}

Test(classes, dataclasses_keep_sentinels)
{
    cpk_py_file("dataclasses_keep_sentinels.py");
    cpk_fresh_protos("[Config, Config('x', ['t'], 4)]",
                     cpk_py_text("dataclasses_keep_sentinels_fresh.py"));
}

Test(classes, super_and_descriptors)
{
    cpk_py_file("super_and_descriptors.py");
    cpk_fresh_protos("Child",
                     "c = obj.make()\n"
                     "assert c.greet() == 'child+base' and c.prop == 'prop'\n"
                     "c.prop = 5\n"
                     "assert c._p == 5 and obj.twice(4) == 8\n"
                     "assert isinstance(c, obj.__mro__[1])\n"
                     "assert obj.__annotations__ == {'count': int, 'label': 'str'}\n");
}

Test(classes, self_referencing_class)
{
    cpk_py("class Node:\n"
           "    def __init__(self, nxt=None):\n"
           "        self.nxt = nxt\n"
           "    def again(self):\n"
           "        return Node(self)\n"
           "    kind = None\n"
           "Node.kind = Node\n");
    cpk_fresh_protos("[Node, Node(Node())]",
                     "Node, n = obj\n"
                     "assert Node.kind is Node and isinstance(n.nxt, Node)\n"
                     "assert isinstance(n.again(), Node)\n");
}

Test(classes, class_with_dict_property)
{
    cpk_py("class Odd:\n"
           "    @property\n"
           "    def __dict__(self):\n"
           "        return {'fake': True}\n");
    cpk_fresh_protos("Odd", "assert obj().__dict__ == {'fake': True}\n");
}

Test(classes, instances_of_importable_classes_by_reference)
{
    cpk_py("import ccloudpickle as cp, pickle\n"
           "import cpk_fixture_funcs as m\n"
           "p = m.Point(3, 4)\n"
           "assert cp.dumps(p) == pickle.dumps(p, protocol=5)\n"
           "assert cp.loads(cp.dumps(p)).norm() == 5\n");
}

Test(classes, exception_subclass)
{
    cpk_py("class AppError(ValueError):\n"
           "    def describe(self):\n"
           "        return f'{self.args[0]} ({self.code})'\n"
           "err = AppError('bad input')\n"
           "err.code = 7\n");
    cpk_fresh_protos("err", "assert isinstance(obj, ValueError)\n"
                            "assert obj.describe() == 'bad input (7)'\n");
}
