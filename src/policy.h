/* policy.h - the import policy of `cloudpickle-load --allow/--deny` and
 * `ccloudpickle.loads(data, allow=[...], deny=[...])`: one rule set,
 * checked statically against a pkscan report before a load and again by
 * the Unpickler's find_class during it, so the two cannot disagree.
 *
 * Pure C11, no Python.h, no global mutable state.
 *
 * Patterns: `module` (every name of that module, and the module itself as
 * a subimport), `module.name` (that name; a dotted name spelled in full),
 * or either with a trailing `*`, a prefix wildcard over the dotted
 * "module.name" (`numpy.*`, `mypkg*`). Anything else (empty, a `*` not at
 * the end, spaces, an empty component) is refused when the rule is added.
 *
 * Verdict for one import (module, name, category, dangerous), where
 * category/dangerous are pkscan's classification (pkscan.h):
 *   - with at least one allow rule ("restricted"): permitted iff it
 *     matches an allow rule, or it is a ccloudpickle or cloudpickle
 *     reconstructor or plain data (category CCLOUDPICKLE, CLOUDPICKLE or
 *     PLAIN) and not dangerous;
 *   - with deny rules only: permitted unless it matches a deny rule;
 *   - a deny rule always wins;
 *   - an import whose name is unknown statically (PKSCAN_VIA_DYNAMIC,
 *     PKSCAN_VIA_EXT) is never permitted when the policy has any rule:
 *     nothing proves it is not denied.
 */
#ifndef CPK_POLICY_H
#define CPK_POLICY_H

#include <stddef.h>

#include "pkscan.h"

typedef struct cpk_policy cpk_policy;

/* A new empty policy (permits everything), or NULL out of memory. */
cpk_policy *cpk_policy_new(void);
void cpk_policy_free(cpk_policy *p);

/* Add a rule: allow = 1 for --allow, 0 for --deny. 0 on success; -1 with
 * *why (a static phrase) set for a malformed pattern or out of memory. */
int cpk_policy_add(cpk_policy *p, int allow, const char *pattern,
                   const char **why);

/* 1 if the policy has any rule (a load must be checked), else 0. */
int cpk_policy_active(const cpk_policy *p);

/* The verdict for one import: 1 permitted, 0 refused. */
int cpk_policy_permits(const cpk_policy *p, const pkscan_import *imp);

/* Static check of a whole report: the number of refused imports; their
 * indices into r->imports are written to `refused` (up to `cap` of them,
 * in input order) when it is not NULL. */
size_t cpk_policy_check(const cpk_policy *p, const pkscan_report *r,
                        size_t *refused, size_t cap);

#endif
