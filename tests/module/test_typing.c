/* test_typing.c - typing constructs: dynamic TypeVars by value (and
 * importable ones by reference), parametrized generics, Literal, Final,
 * ClassVar, Union and Optional over dynamic classes, annotations that use
 * them; in a fresh interpreter at protocols 2 and 5. */
#include "support.h"

TestSuite(typing, .init = cpk_py_start, .fini = cpk_py_stop);

Test(typing, dynamic_typevars)
{
    cpk_py("import typing\n"
           "class Base:\n"
           "    pass\n"
           "T = typing.TypeVar('T')\n"
           "B = typing.TypeVar('B', bound=Base)\n"
           "C = typing.TypeVar('C', int, str, covariant=True)\n"
           "K = typing.TypeVar('K', contravariant=True)\n");
    cpk_fresh_protos("[T, B, C, K, Base]",
                     "import typing\n"
                     "T, B, C, K, Base = obj\n"
                     "assert all(isinstance(x, typing.TypeVar) for x in obj[:4])\n"
                     "assert (T.__name__, B.__name__, C.__name__) == ('T', 'B', 'C')\n"
                     "assert B.__bound__ is Base and T.__bound__ is None\n"
                     "assert C.__constraints__ == (int, str) and C.__covariant__\n"
                     "assert K.__contravariant__ and not K.__covariant__\n");
}

Test(typing, importable_typevar_by_reference)
{
    cpk_py("import ccloudpickle as cp, typing\n"
           "data = cp.dumps(typing.AnyStr)\n"
           "assert cp.loads(data) is typing.AnyStr\n"
           "assert b'_make_typevar' not in data\n");
}

Test(typing, generic_aliases_and_special_forms)
{
    cpk_py_file("generic_aliases_and_special_forms.py");
    cpk_fresh_protos(
        "hints", cpk_py_text("generic_aliases_and_special_forms_fresh.py"));
}

Test(typing, annotations_with_dynamic_types)
{
    cpk_py("import typing\n"
           "T = typing.TypeVar('T')\n"
           "class Node(typing.Generic[T]):\n"
           "    value: T\n"
           "    children: typing.List['Node[T]']\n"
           "def first(nodes: typing.List[Node[int]]) -> typing.Optional[Node[int]]:\n"
           "    return nodes[0] if nodes else None\n");
    cpk_fresh_protos("first",
                     "import typing\n"
                     "hints = obj.__annotations__\n"
                     "Node = typing.get_args(hints['nodes'])[0].__origin__\n"
                     "assert Node.__name__ == 'Node'\n"
                     "assert obj([]) is None and obj([1]) == 1\n");
}

/* The classes of typing, enum, logging... are found again when their
 * module is imported anew, even when sys.modules keeps its size (a pop then
 * an import): identity, not the count of modules, decides. */
Test(typing, lazy_types_follow_a_reimported_module)
{
    cpk_py_file("lazy_types_follow_a_reimported_module.py");
}

/* A refresh interrupted half-way (Ctrl-C in a module's __getattr__) looks
 * again at the next dump, without waiting for sys.modules to change. (The
 * dumps are of len: plain data such as 1 goes to _pickle.dumps without
 * any refresh.) */
Test(typing, lazy_types_after_an_interrupted_refresh)
{
    cpk_py_file("lazy_types_after_an_interrupted_refresh.py");
}
