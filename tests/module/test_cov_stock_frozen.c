/* test_cov_stock_frozen.c - sharing the by-value registry with a stock
 * cloudpickle module whose registry is not a plain set (a frozenset a
 * fork or a test put there): its names become ours, and the module is
 * given our set, so later registrations on either side are seen by both;
 * the import watcher on sys.meta_path says what it is. */
#include "support.h"

TestSuite(cov_stock_frozen, .init = cpk_py_start, .fini = cpk_py_stop);

Test(cov_stock_frozen, frozenset_registry_is_replaced_by_ours)
{
    cpk_py("import sys, types\n"
           "stand = types.ModuleType('cloudpickle.cloudpickle')\n"
           "stand._PICKLE_BY_VALUE_MODULES = frozenset({'cpk_some_mod'})\n"
           "sys.modules['cloudpickle.cloudpickle'] = stand\n"
           "import ccloudpickle as cp, json\n"
           "reg = stand._PICKLE_BY_VALUE_MODULES\n"
           "assert type(reg) is set and reg == {'cpk_some_mod'}, reg\n"
           "assert cp.list_registry_pickle_by_value() == {'cpk_some_mod'}\n"
           "cp.register_pickle_by_value(json)\n"
           "assert stand._PICKLE_BY_VALUE_MODULES == {'cpk_some_mod', "
           "'json'}\n"
           "stand._PICKLE_BY_VALUE_MODULES.discard('cpk_some_mod')\n"
           "assert cp.list_registry_pickle_by_value() == {'json'}\n");
}

Test(cov_stock_frozen, one_watcher_names_itself)
{
    cpk_py("import sys, ccloudpickle\n"
           "ws = [w for w in sys.meta_path\n"
           "      if type(w).__module__ == 'ccloudpickle']\n"
           "assert len(ws) == 1, ws\n"
           "assert repr(ws[0]) == '<ccloudpickle stock cloudpickle "
           "watcher>', repr(ws[0])\n"
           "try:\n"
           "    type(ws[0])()\n"
           "except TypeError:\n"
           "    pass\n"
           "else:\n"
           "    raise AssertionError('a second watcher was made')\n");
}
