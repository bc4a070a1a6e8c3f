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
                     "Color, g, c = obj\n"
                     "assert g is Color.GREEN and c is Color.RED\n"
                     "assert Color.CRIMSON is Color.RED and Color(1) is Color.RED\n"
                     "assert [m.name for m in Color] == ['RED', 'GREEN']\n"
                     "assert list(Color.__members__) == ['RED', 'GREEN', 'CRIMSON']\n"
                     "assert Color.RED.warm() and not g.warm()\n"
                     "assert Color.__qualname__ == 'Color'\n"
                     "assert Color.__module__ == '__main__'\n");
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
                     "Perm, rw, rx, zero, all_ = obj\n"
                     "assert rw is Perm.RW and rw == Perm.R | Perm.W\n"
                     "assert rx == Perm.R | Perm.X and Perm.X in rx\n"
                     "assert zero is Perm.NONE and not zero\n"
                     "assert all_ is Perm.ALL\n"
                     /* 3.11 iterates a Flag's canonical (one-bit)
                      * members only (bpo-38250); before, every member
                      * that is not an alias. */
                     "canonical = ['R', 'W', 'X'] if sys.version_info >= "
                     "(3, 11) else ['NONE', 'R', 'W', 'X', 'RW', 'ALL']\n"
                     "assert [m.name for m in Perm] == canonical\n"
                     "assert set(Perm.__members__) == "
                     "{'NONE', 'R', 'W', 'X', 'RW', 'ALL'}\n");
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
