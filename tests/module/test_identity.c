/* test_identity.c - one class per tracker id: a dynamic class (or enum, or
 * TypeVar) pickled several times, in one dump or several, loads as one
 * class in the loading process; loading it back where it was defined gives
 * the original, untouched. */
#include "support.h"

TestSuite(identity, .init = cpk_py_start, .fini = cpk_py_stop);

Test(identity, same_class_from_several_dumps_is_one_class)
{
    cpk_py_file("same_class_from_several_dumps_is_one_class.py");
    cpk_fresh("data",
              "import ccloudpickle as cp, enum, typing\n"
              "c1, inst, pair, e, ea, t1, t2 = [cp.loads(d) for d in obj]\n"
              "assert c1 is type(inst) is pair[0] is pair[1]\n"
              "assert c1.__name__ == 'C' and c1.__module__ == '__main__'\n"
              "assert e.A is ea and isinstance(ea, e)\n"
              "assert t1 is t2 and isinstance(t1, typing.TypeVar)\n");
}

Test(identity, back_in_the_defining_process_gives_the_original)
{
    cpk_py_file("back_in_the_defining_process_gives_the_original.py");
}

Test(identity, rebuilt_class_takes_the_latest_state)
{
    /* Two processes: the second pickle of a class, after a change of a
     * class attribute, updates the class the worker already has. */
    cpk_py("import ccloudpickle as cp\n"
           "class Config:\n"
           "    level = 1\n"
           "first = cp.dumps(Config)\n"
           "Config.level = 2\n"
           "second = cp.dumps(Config)\n"
           "data = cp.dumps([first, second])\n");
    cpk_fresh("data",
              "import ccloudpickle as cp\n"
              "a = cp.loads(obj[0])\n"
              "assert a.level == 1\n"
              "b = cp.loads(obj[1])\n"
              "assert b is a and a.level == 2\n");
}

Test(identity, distinct_classes_stay_distinct)
{
    cpk_py("import ccloudpickle as cp\n"
           "def make():\n"
           "    class Same:\n"
           "        pass\n"
           "    return Same\n"
           "A, B = make(), make()\n"
           "data = cp.dumps([A, B])\n");
    cpk_fresh("data", "A, B = obj\n"
                      "assert A is not B and A.__name__ == B.__name__\n");
}

Test(identity, tracker_forgets_dead_classes)
{
    cpk_py_file("tracker_forgets_dead_classes.py");
}
