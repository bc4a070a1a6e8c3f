/* test_enums.c - dynamic enums by value: Enum, IntEnum, Flag, IntFlag,
 * aliases, composite and zero flag members (stock cloudpickle fails on
 * those since Python 3.11: "cannot reassign member"), methods and members'
 * identity, in a fresh interpreter, at protocols 2 and 5. */
#include "support.h"

TestSuite(enums, .init = cpk_py_start, .fini = cpk_py_stop);

Test(enums, enum_with_alias_and_method)
{
    cpk_py("import enum\n"
           "class Color(enum.Enum):\n"
           "    RED = 1\n"
           "    GREEN = 2\n"
           "    CRIMSON = 1\n"
           "    def warm(self):\n"
           "        return self is Color.RED\n");
    cpk_fresh_protos("[Color, Color.GREEN, Color.CRIMSON]",
                     cpk_py_text("enum_with_alias_and_method_fresh.py"));
}

Test(enums, int_enum)
{
    cpk_py("import enum\n"
           "class Level(enum.IntEnum):\n"
           "    LOW = 1\n"
           "    HIGH = 5\n");
    cpk_fresh_protos("[Level, Level.HIGH]",
                     "Level, h = obj\n"
                     "assert h == 5 and h is Level.HIGH and Level.LOW < h\n"
                     "assert isinstance(h, int)\n");
}

Test(enums, flag_composite_and_zero_members)
{
    cpk_py_file("flag_composite_and_zero_members.py");
    cpk_fresh_protos("[Perm, Perm.RW, Perm.R | Perm.X, Perm(0), Perm.ALL]",
                     cpk_py_text("flag_composite_and_zero_members_fresh.py"));
}

Test(enums, int_flag)
{
    cpk_py("import enum\n"
           "class Mode(enum.IntFlag):\n"
           "    A = 1\n"
           "    B = 2\n"
           "    AB = 3\n");
    cpk_fresh_protos("[Mode, Mode.A | Mode.B, Mode(0)]",
                     "Mode, ab, z = obj\n"
                     "assert ab is Mode.AB and ab == 3 and isinstance(ab, int)\n"
                     "assert z == 0 and isinstance(z, Mode)\n");
}

Test(enums, enum_with_custom_attributes)
{
    cpk_py_file("enum_with_custom_attributes.py");
    cpk_fresh_protos("Planet",
                     "assert obj.MARS.radius == 3.39e6\n"
                     "assert obj.EARTH.density > obj.MARS.density\n"
                     "assert [p.name for p in obj] == ['EARTH', 'MARS']\n"
                     "assert obj((5.97e24, 6.37e6)) is obj.EARTH\n");
}

Test(enums, enum_round_trip_in_process_is_identity)
{
    cpk_py("import ccloudpickle as cp, enum\n"
           "class E(enum.Enum):\n"
           "    A = 1\n"
           "    B = 1\n"
           "for proto in (2, 5):\n"
           "    assert cp.loads(cp.dumps(E, protocol=proto)) is E\n"
           "    assert cp.loads(cp.dumps(E.B, protocol=proto)) is E.A\n");
}

/* A class whose _member_map_ was tampered with: the dump fails with the
 * error that says why, never a SystemError (a call made with an error
 * already set). */
Test(enums, tampered_member_map_refused_with_its_error)
{
    cpk_py_file("tampered_member_map_refused_with_its_error.py");
}
