/* test_cov_functools_edges.c - lru_cache wrappers and singledispatch
 * functions carried by value whose bookkeeping was changed: a wrapper
 * without __wrapped__ or with a cache_parameters() that lies or raises,
 * a singledispatch registry of the wrong shape or missing its own helper
 * attributes, and _singledispatch_fill given state it must not apply.
 * Each is refused with a reason (or the error that stopped it), never
 * pickled as a different function. */
#include "support.h"

TestSuite(cov_functools_edges, .init = cpk_py_start, .fini = cpk_py_stop);

#define LRU                                                                   \
    "import ccloudpickle as cp, functools, pickle\n"                          \
    "@functools.lru_cache(maxsize=4)\n"                                       \
    "def w(x):\n"                                                             \
    "    return x * 2\n"

Test(cov_functools_edges, lru_wrapper_without_wrapped_refused)
{
    cpk_py(LRU
           "del w.__wrapped__\n"
           "try:\n"
           "    cp.dumps(w)\n"
           "except pickle.PicklingError as e:\n"
           "    assert str(e) == (\"Can't pickle lru_cache wrapper %r by \"\n"
           "                      'value: it has no __wrapped__' % (w,)), e\n"
           "else:\n"
           "    raise AssertionError('pickled')\n");
}

Test(cov_functools_edges, lru_cache_parameters_of_another_shape_refused)
{
    cpk_py(LRU
           "for bad in ({'maxsize': 'big', 'typed': False}, [1],\n"
           "            {'typed': False}, {'maxsize': 3}):\n"
           "    w.cache_parameters = lambda bad=bad: bad\n"
           "    for kw in ({}, {'compat': 'cloudpickle'}):\n"
           "        try:\n"
           "            cp.dumps(w, **kw)\n"
           "        except pickle.PicklingError as e:\n"
           "            assert 'by value: its cache_parameters() is not ' \\\n"
           "                \"{'maxsize': int or None, 'typed': ...}\" \\\n"
           "                in str(e), e\n"
           "        else:\n"
           "            raise AssertionError('pickled with %r' % (bad,))\n");
}

Test(cov_functools_edges, lru_cache_parameters_errors_propagate)
{
    cpk_py_raises(LRU "w.cache_parameters = lambda: 1 / 0\n"
                      "cp.dumps(w)\n",
                  "ZeroDivisionError", NULL);
    cpk_py_raises(LRU "class Typed:\n"
                      "    def __bool__(self):\n"
                      "        raise RuntimeError('typed or not')\n"
                      "w.cache_parameters = lambda: {'maxsize': 3,\n"
                      "                              'typed': Typed()}\n"
                      "cp.dumps(w)\n",
                  "RuntimeError", "typed or not");
}

Test(cov_functools_edges, lru_cache_parameters_are_what_is_rebuilt)
{
    cpk_py(LRU
           "w.cache_parameters = lambda: {'maxsize': None, 'typed': True}\n");
    cpk_fresh_protos("w",
                     "assert obj.cache_parameters() == "
                     "{'maxsize': None, 'typed': True}\n"
                     "assert obj(4) == 8 and obj.cache_info().currsize == 1\n");
}

#define SD                                                                    \
    "import ccloudpickle as cp, functools, pickle\n"                          \
    "@functools.singledispatch\n"                                             \
    "def sd(x):\n"                                                            \
    "    return 'base'\n"                                                     \
    "@sd.register\n"                                                          \
    "def _(x: int):\n"                                                        \
    "    return 'int'\n"

Test(cov_functools_edges, registry_items_not_pairs_refused)
{
    cpk_py_raises(SD "class Reg(dict):\n"
                     "    def items(self):\n"
                     "        return [(int,)]\n"
                     "sd.__dict__['registry'] = Reg(sd.registry)\n"
                     "cp.dumps(sd)\n",
                  "TypeError", "singledispatch registry items must be pairs");
}

Test(cov_functools_edges, missing_own_attribute_is_made_again)
{
    /* _clear_cache gone from the wrapper: the pickle does not need it,
     * the loaded dispatcher has its own. */
    cpk_py(SD "del sd._clear_cache\n"
              "sd.extra = 7\n");
    cpk_fresh("cp.dumps(sd)",
              "assert obj(1) == 'int' and obj('a') == 'base'\n"
              "assert obj.extra == 7 and callable(obj._clear_cache)\n");
}

Test(cov_functools_edges, fill_refuses_function_fields)
{
    cpk_py(SD
           "for key in ('__code__', '__globals__', '__closure__',\n"
           "            '__defaults__', '__kwdefaults__', '__dict__'):\n"
           "    try:\n"
           "        cp._singledispatch_fill(sd, ((), {key: 1}))\n"
           "    except cp.ReconstructorValueError as e:\n"
           "        assert str(e) == '_singledispatch_fill() argument 2 '\\\n"
           "            '(state) item 1 may not set ' + key, str(e)\n"
           "    else:\n"
           "        raise AssertionError(key)\n"
           "assert sd(1) == 'int' and sd.__code__.co_name == 'wrapper'\n");
}

Test(cov_functools_edges, fill_attribute_error_propagates)
{
    cpk_py_raises(SD "cp._singledispatch_fill(sd, ((), {'__name__': 5}))\n",
                  "TypeError", "__name__ must be set to a string object");
}

Test(cov_functools_edges, fill_register_error_propagates)
{
    cpk_py_raises(SD "class Meta(type):\n"
                     "    def __hash__(cls):\n"
                     "        raise RuntimeError('unhashable class')\n"
                     "class H(metaclass=Meta):\n"
                     "    pass\n"
                     "cp._singledispatch_fill(sd, (((H, len),), {}))\n",
                  "RuntimeError", "unhashable class");
}

Test(cov_functools_edges, singledispatchmethod_in_cloudpickle_format)
{
    cpk_py("import ccloudpickle as cp, functools\n"
           "class C:\n"
           "    @functools.singledispatchmethod\n"
           "    def m(self, x):\n"
           "        return 'base'\n"
           "    @m.register\n"
           "    def _(self, x: int):\n"
           "        return 'int'\n");
    cpk_fresh("cp.dumps(C, compat='cloudpickle')",
              "assert obj().m(1) == 'int' and obj().m('a') == 'base'\n");
}
