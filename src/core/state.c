/* state.c - the module's definition and its state: traverse, clear and
 * free of the per-module state (state.h's cpk_state), the exact-type
 * table's insert, and the import helper every layer above uses. module.c
 * fills in the definition's methods and exec slot at PyInit.
 */
#include "core/state.h"
#include "ccloudpickle.h"

#include <stdint.h>

static int
module_traverse(PyObject *module, visitproc visit, void *arg)
{
    cpk_state *st = cpk_get_state(module);
    if (st == NULL)
        return 0;
#define VISIT(f) Py_VISIT(st->f);
    CPK_STATE_OBJECTS(VISIT)
#undef VISIT
    for (int i = 0; i < CPK_LAZY_COUNT; i++) {
        Py_VISIT(st->lazy_types[i]);
        Py_VISIT(st->lazy_modules[i]);
        Py_VISIT(st->lazy_sources[i]);
    }
    return 0;
}

static int
module_clear(PyObject *module)
{
    cpk_state *st = cpk_get_state(module);
    if (st == NULL)
        return 0;
#define CLEAR(f) Py_CLEAR(st->f);
    CPK_STATE_OBJECTS(CLEAR)
#undef CLEAR
#define CLEAR_NAME(n) Py_CLEAR(st->str_##n);
    CPK_NAMES(CLEAR_NAME)
#undef CLEAR_NAME
    /* Borrowed from base_loads, cleared above. */
    st->base_loads_fast = NULL;
    st->base_loads_self = NULL;
    for (int i = 0; i < CPK_LAZY_COUNT; i++) {
        Py_CLEAR(st->lazy_types[i]);
        Py_CLEAR(st->lazy_modules[i]);
        Py_CLEAR(st->lazy_sources[i]);
    }
    /* The table's entries are borrowed from the fields cleared above. */
    memset(st->table, 0, sizeof(st->table));
    return 0;
}

static void
module_free(void *module)
{
    (void)module_clear((PyObject *)module);
}

PyModuleDef cpk_module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = CPK_MODULE_NAME,
    .m_size = sizeof(cpk_state),
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

/* An attribute of an imported module (new reference). */
PyObject *
cpk_import_attr(const char *module, const char *name)
{
    PyObject *mod = PyImport_ImportModule(module);
    if (mod == NULL)
        return NULL;
    PyObject *attr = PyObject_GetAttrString(mod, name);
    Py_DECREF(mod);
    return attr;
}

void
cpk_table_add(cpk_state *st, PyTypeObject *type, int kind)
{
    size_t i = ((uintptr_t)type >> 4) & (CPK_TYPE_TABLE_SIZE - 1);
    while (st->table[i].type != NULL && st->table[i].type != type)
        i = (i + 1) & (CPK_TYPE_TABLE_SIZE - 1);
    st->table[i].type = type;
    st->table[i].kind = kind;
}
