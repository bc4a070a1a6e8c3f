/* stock.h - stock.c: stock cloudpickle in the same process shares our
 * by-value registry and class tracker. */
#ifndef CPK_CORE_STOCK_H
#define CPK_CORE_STOCK_H

#include "core/state.h"

/* stock.c: stock cloudpickle's module `cloudpickle.cloudpickle`, where
 * imported, shares our by-value registry and class tracker. */
/* Put the meta path watcher in place; share with stock if imported. */
int cpk_stock_init(PyObject *module, cpk_state *st);
/* Share with the stock module now in sys.modules if not done. 0 or -1. */
int cpk_stock_refresh(cpk_state *st);
/* The tracker id for `cls`, decided under stock's tracker lock: the one
 * stock holds, else `tid`, given to stock too. New reference (`tid` where
 * stock is absent), NULL on error. */
PyObject *cpk_stock_claim_id(cpk_state *st, PyObject *cls, PyObject *tid);
/* The class for tracker id `tid`, decided under stock's tracker lock: the
 * one stock holds, else `cls`, given to stock too. New reference. */
PyObject *cpk_stock_claim_class(cpk_state *st, PyObject *tid, PyObject *cls);
extern PyMethodDef cpk_stock_methods[];

#endif
