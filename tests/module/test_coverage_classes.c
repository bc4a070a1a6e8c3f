/* test_coverage_classes.c - classes, enums, code objects, the class
 * tracker and the lazily found stdlib types at their less travelled
 * edges: several bases, every __slots__ form, ABC registries that lost a
 * member, enums with aliases and custom __new__, code constants of every
 * marshal kind (and one marshal refuses), the tracker cloudpickle shares,
 * stdlib modules imported anew or shadowed. */
#include "support.h"

TestSuite(coverage_classes, .init = cpk_py_start, .fini = cpk_py_stop);

Test(coverage_classes, several_bases_keep_inherited_and_own_attributes)
{
    cpk_py_file("several_bases_keep_inherited_and_own_attributes.py");
    cpk_fresh_protos("[A, B, C, D, C()]", cpk_py_text(
        "several_bases_keep_inherited_and_own_attributes_fresh.py"));
}

Test(coverage_classes, every_slots_form_survives)
{
    cpk_py_file("every_slots_form_survives.py");
    cpk_fresh_protos(
        "[__Priv, __Priv(), OneStr, DictSlots, WithDict, Dunder,\n" " DictSlots.a.__doc__]",
        cpk_py_text("every_slots_form_survives_fresh.py"));
}

Test(coverage_classes, abc_registry_drops_dead_registrants)
{
    cpk_py_file("abc_registry_drops_dead_registrants.py");
    cpk_fresh_protos(
        "[Shape, Square]",
        cpk_py_text("abc_registry_drops_dead_registrants_fresh.py"));
}

Test(coverage_classes, enums_keep_aliases_flags_and_custom_new)
{
    cpk_py_file("enums_keep_aliases_flags_and_custom_new.py");
    cpk_fresh_protos(
        "[Color, Color.CRIMSON, Perm, Perm.R | Perm.W, Mode,\n" " Mode.A | Mode.B, Planet, Planet.MARS, Coded, Coded.NO]",
        cpk_py_text("enums_keep_aliases_flags_and_custom_new_fresh.py"));
}

Test(coverage_classes, metaclass_chosen_from_bases_and_class_kwargs)
{
    cpk_py_file("metaclass_chosen_from_bases_and_class_kwargs.py");
    cpk_fresh_protos("[Mixed, Sweet]",
                     "Mixed, Sweet = obj\n"
                     "assert type(Mixed).__name__ == 'SubMeta'\n"
                     "assert Mixed.hello() == 'hello Mixed'\n"
                     "assert Mixed.made_by == 'SubMeta'\n"
                     "assert [b.__name__ for b in Mixed.__bases__] == "
                     "['Root', 'Other']\n"
                     "assert Sweet.flavor == 'sweet'\n");
}

Test(coverage_classes, code_constants_of_every_marshal_kind)
{
    cpk_py_file("_code_constants.py",
                "code_constants_of_every_marshal_kind.py");
    cpk_fresh_protos(
        "[consts, expect]",
        cpk_py_text("code_constants_of_every_marshal_kind_fresh.py"));
}

Test(coverage_classes, code_constants_in_cloudpickle_format)
{
    cpk_require("cloudpickle");
    cpk_py_file("_code_constants.py",
                "code_constants_in_cloudpickle_format.py");
}

Test(coverage_classes, code_with_constant_marshal_refuses)
{
    /* A constant marshal cannot write (a range, put there with
     * CodeType.replace): the code travels as its constructor's fields. */
    cpk_py_file("code_with_constant_marshal_refuses.py");
    cpk_fresh_protos("f", "assert obj() == range(3, 9)\n"
                          "assert type(obj()) is range\n");
}

Test(coverage_classes, code_from_another_bytecode_is_refused_by_name)
{
    cpk_py_raises("import ccloudpickle, sys\n"
                  "v = '%d.%d.%d' % sys.version_info[:3]\n"
                  "ccloudpickle._code_unmarshal('0.1.2', 2 ** 80, b'')\n",
                  "UnpicklingError", "compiled by Python 0.1.2");
    cpk_py_raises("import ccloudpickle, sys\n"
                  "ccloudpickle._code_unmarshal("
                  "'%d.%d' % sys.version_info[:2], 2 ** 80, b'')\n",
                  "UnpicklingError", "bytecode version");
    cpk_py_raises("import ccloudpickle, importlib.util, sys\n"
                  "magic = int.from_bytes(importlib.util.MAGIC_NUMBER,"
                  " 'little')\n"
                  "ccloudpickle._code_unmarshal('%d.%d' % sys.version_info[:2],"
                  " magic, b'\\xff\\x00')\n",
                  "UnpicklingError", "corrupt code object");
}

Test(coverage_classes, tracker_id_from_cloudpickle_is_shared)
{
    cpk_require("cloudpickle");
    cpk_py("import cloudpickle, ccloudpickle, pickle\n"
           "class Shared:\n"
           "    def hi(self):\n"
           "        return 'hi'\n"
           "first = cloudpickle.dumps(Shared)\n"
           "second = ccloudpickle.dumps(Shared)\n"
           "pair = pickle.dumps((first, second))\n");
    /* cloudpickle loads its pickle first; ours then finds that class
     * under the same id: one class, not two. */
    cpk_fresh("pair",
              "import cloudpickle, ccloudpickle\n"
              "a = cloudpickle.loads(obj[0])\n"
              "b = ccloudpickle.loads(obj[1])\n"
              "assert a is b, (a, b)\n"
              "assert b().hi() == 'hi'\n"
              "assert ccloudpickle.loads(obj[1]) is a\n");
}

Test(coverage_classes, tracker_id_must_be_str_or_none)
{
    cpk_py_raises("import ccloudpickle\n"
                  "ccloudpickle._make_skeleton_class(type, 'K', (object,),\n"
                  "    {'__module__': '__main__'}, 5, None)\n",
                  "ReconstructorTypeError", "(tracker_id) must be str or None");
    cpk_py_file("tracker_id_must_be_str_or_none.py");
}

Test(coverage_classes, stdlib_modules_imported_anew_keep_their_reducers)
{
    /* Objects of the old classes still exist after a module is imported
     * again: both the old and the new ones pickle as before. */
    cpk_py_file("stdlib_modules_imported_anew_keep_their_reducers.py");
    cpk_fresh("ccloudpickle.dumps([dc2.MISSING, old_logger, new_logger])",
              "import dataclasses, logging\n"
              "b, lo, ln = obj\n"
              "assert b is dataclasses.MISSING\n"
              "assert lo is logging.getLogger('cov.old')\n"
              "assert ln is logging.getLogger('cov.new')\n");
}

Test(coverage_classes, shadowed_stdlib_module_is_not_ours)
{
    /* A module under a stdlib name without the class (or with something
     * else under its name) is not the stdlib's: pickling goes on, and once
     * the real module is back its class is found by name again. (While it
     * is shadowed, WeakSet cannot be found by name and would travel by
     * value, as with cloudpickle; not asserted: on 3.9 its module's
     * globals hold weakref.ref, which pickle cannot name there.) */
    cpk_py_file("shadowed_stdlib_module_is_not_ours.py");
    cpk_fresh("ccloudpickle.dumps([ws, keep])",
              "import weakref\n"
              "ws, k = obj\n"
              "assert type(ws) is weakref.WeakSet\n"
              "assert list(ws) == [k] and type(k).__name__ == 'Item'\n");
}

Test(coverage_classes, orig_bases_that_is_not_a_tuple_is_an_attribute)
{
    /* __orig_bases__ names the class statement's bases only when it is a
     * tuple; otherwise it is just an attribute, and the real bases win. */
    cpk_py("class Odd:\n"
           "    __orig_bases__ = 'not bases'\n"
           "    def f(self):\n"
           "        return 1\n"
           "class Sub(Odd):\n"
           "    pass\n");
    cpk_fresh_protos("[Odd, Sub]",
                     "Odd, Sub = obj\n"
                     "assert Odd.__orig_bases__ == 'not bases'\n"
                     "assert Odd.__bases__ == (object,)\n"
                     "assert Sub.__bases__ == (Odd,) and Sub().f() == 1\n"
                     "assert '__orig_bases__' not in Sub.__dict__\n");
}
