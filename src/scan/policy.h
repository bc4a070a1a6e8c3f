/* policy.h - the import policy of `cloudpickle-load --allow/--deny` and
 * `ccloudpickle.loads(data, allow=[...], deny=[...])`: one rule set,
 * checked statically against a pkscan report before a load and again by
 * the Unpickler's find_class during it, so the two cannot disagree.
 * Implementation: src/scan/policy.c; the Python glue (loads' allow=/deny=):
 * src/loadpolicy.c.
 *
 * Pure C11, no Python.h, no global mutable state.
 *
 * Patterns: `module` or `module.name`, optionally ending in `*`. A pattern
 * is one or more dot-separated components, each made of ASCII letters,
 * digits, `_` and non-ASCII characters (well-formed UTF-8: no surrogate,
 * no overlong or truncated sequence) and not starting with a digit;
 * only its last character may be `*`. Anything else (empty, a `*` not at
 * the end, spaces or other punctuation, an empty component as in `a..b`,
 * `.a` or `a.`) is refused when the rule is added. `*` alone matches
 * everything.
 *
 * Matching is done on the dotted path D of an import: "module.name", or
 * "module" for a module itself (a subimport, name ""), with the names
 * find_class resolves (pkscan's `module`/`name`: after protocol < 3's
 * fix_imports mapping, so `__builtin__.eval` is matched as
 * `builtins.eval`; the written_* spellings are not matched).
 *   - A pattern P without `*` matches D == P, and every D that goes
 *     through P: D starting with P followed by a dot. So `os` matches
 *     os.getcwd, the module os, and os.path.join (a submodule); `mymod.f`
 *     matches mymod.f and mymod.f.__call__ (protocol 4 attribute paths);
 *     neither matches `osx` or `mymod.fg`.
 *   - A pattern `Q*` matches every D starting with Q; when Q ends with a
 *     dot (`numpy.*`), also the module itself (D == "numpy").
 *   - A deny rule also matches the tail of a dotted name from any of its
 *     components but the last: `uuid` + `os.system` (protocol 4
 *     find_class reaches os.system through uuid's attribute os) is denied
 *     by `os` and by `os.system`, not by `system`.
 * Protocol 4 dotted names are resolved by attribute lookup, so an allow
 * rule trusts every attribute path from what it names: allowing `mymod`
 * also allows `mymod` + `os.system` if mymod has imported os (at run
 * time find_class refuses a module object as a result, see
 * cpk_policy_names, not a path through one). Allow only modules whose
 * attributes you trust.
 *
 * Verdict for one import (module, name, category, dangerous), where
 * category/dangerous are pkscan's classification (pkscan.h):
 *   - "restricted" (at least one allow rule, or cpk_policy_restrict):
 *     permitted iff it matches an allow rule, or it is a ccloudpickle or
 *     cloudpickle reconstructor or plain data (category CCLOUDPICKLE,
 *     CLOUDPICKLE or PLAIN), not dangerous, and its name has no attribute
 *     path but dunders (`enum` + `Enum.__new__` is exempt, `dataclasses`
 *     + `inspect.os.system` is not: pkscan classifies by the module, and
 *     a path may leave it through an attribute holding another module;
 *     `collections` + `OrderedDict.fromkeys` needs an allow rule);
 *   - with deny rules only: permitted unless it matches a deny rule or
 *     is one of the risky imports below;
 *   - in every active policy, a risky import is permitted only when an
 *     allow rule names it: pkscan's `dangerous` ones (commands, code
 *     objects, eval/exec/compile, a computed getattr, __import__,
 *     importlib, operator.attrgetter/methodcaller, nested unpicklers:
 *     the last ones reach names no deny rule can foresee), the
 *     unpicklers pkscan does not flag (ccloudpickle._loads_exact, the
 *     loads/load/Unpickler of cloudpickle and dill and their submodules),
 *     and a dotted name with a private component before its last
 *     (`tempfile` +
 *     `_os.system`: `import os as _os`, which a deny rule `os` cannot
 *     see through). "Names it": a rule without `*` that matches, or a
 *     `Q*` rule that matches and whose Q spells at least the module's
 *     first component in full (`os*`, `os.*`, `importlib.*`,
 *     `builtins.ev*`; neither `*` nor `o*`);
 *   - a deny rule always wins;
 *   - an import whose name is unknown statically (PKSCAN_VIA_DYNAMIC,
 *     PKSCAN_VIA_EXT, or a name the report left out, s == NULL) is never
 *     permitted when the policy is active: nothing proves it is not
 *     denied.
 * So a deny-only policy permits everything except the denied names and
 * what is risky. It remains a best-effort filter, not a boundary: a
 * permitted module may hand out another under a name no rule foresees
 * (`uuid` + `os.system` is caught by the tail rule above, an alias
 * without a leading `_` is not), and code carried by value (which the
 * reconstructors permitted here rebuild) runs whatever it contains once
 * called; the load calls found statically are refused
 * (cpk_policy_load_calls). An import policy is an audit aid, not a
 * sandbox.
 */
#ifndef CPK_SCAN_POLICY_H
#define CPK_SCAN_POLICY_H

#include <stddef.h>

#include "scan/pkscan.h"

typedef struct cpk_policy cpk_policy;

/* A new empty policy (permits everything), or NULL out of memory. */
cpk_policy *cpk_policy_new(void);
void cpk_policy_free(cpk_policy *p);

/* Add a rule: allow = 1 for --allow, 0 for --deny. 0 on success; -1 with
 * *why (a static phrase) set for a malformed pattern or out of memory. */
int cpk_policy_add(cpk_policy *p, int allow, const char *pattern,
                   const char **why);

/* Make the policy restricted without adding an allow rule: only
 * reconstructors and plain data are permitted (`loads(data, allow=[])`).
 * Adding an allow rule does this too. */
void cpk_policy_restrict(cpk_policy *p);

/* 1 if the policy has any rule or is restricted (a load must be
 * checked), else 0. */
int cpk_policy_active(const cpk_policy *p);

/* The verdict for one import: 1 permitted, 0 refused. */
int cpk_policy_permits(const cpk_policy *p, const pkscan_import *imp);

/* Static check of a whole report: the number of refused imports; their
 * indices into r->imports are written to `refused` (up to `cap` of them,
 * in input order) when it is not NULL. A report whose import list was cut
 * short (r->truncated with PKSCAN_MAX_ITEMS imports listed) cannot be
 * checked: it counts one refusal more, whose index is r->n_imports (past
 * the list). */
size_t cpk_policy_check(const cpk_policy *p, const pkscan_report *r,
                        size_t *refused, size_t cap);

/* Code carried by value that the load itself runs (pkscan_report's
 * load_calls: a by-value function the pickle calls, an instance of a
 * by-value class with methods, ...) is no import, but a policy exists to
 * keep a load from running what the caller did not permit: an active
 * policy refuses every such pickle (no pattern permits it; load it without
 * a policy, after verifying its signature). Returns how many load calls
 * `r` lists under an active policy (one more if the report was cut short
 * and may miss some), else 0. */
size_t cpk_policy_load_calls(const cpk_policy *p, const pkscan_report *r);

/* The closed world (pkscan.h pkscan_state_write): a pickle may give state
 * to, or store into, only objects it provably made, and call only what
 * the scanner's closed table vouches for. An entry of kind NAMED or CALL
 * names a callable outside that table: an allow rule naming it (not the
 * plain list, not a deny-only policy) vouches for it. Whether `w` is
 * admitted by `p` (an inactive policy admits everything). */
int cpk_policy_state_admits(const cpk_policy *p, const pkscan_state_write *w);

/* How many of `r`'s state entries an active `p` refuses (entries past
 * the listed ones count as refused), else 0. */
size_t cpk_policy_state(const cpk_policy *p, const pkscan_report *r);

/* The runtime side: the find_class(module, name) lookups a load under a
 * policy may make, taken from the static report. A lookup is permitted
 * iff (module, name) spells an import of the report that the policy
 * permits: its mapped names (`module`/`name`) or, where the pickle wrote
 * them differently, its `written_module`/`written_name` and each pair of
 * `alt_written` (one name written several ways; find_class gets
 * the names as written; CPython's base find_class applies the fix_imports
 * mapping). A lookup the static scan did not foresee is refused, so the
 * static and the runtime check cannot disagree silently. The set copies
 * what it needs: the report may be freed after cpk_policy_names_new.
 * The Unpickler also refuses, under any active policy, a find_class
 * result that is a module object: no pickler writes one (modules travel
 * through reconstructors such as subimport), and a module in hand is the
 * start of an attribute path the static check cannot follow. */
typedef struct cpk_policy_names cpk_policy_names;

/* NULL out of memory. */
cpk_policy_names *cpk_policy_names_new(const cpk_policy *p,
                                       const pkscan_report *r);
void cpk_policy_names_free(cpk_policy_names *n);

/* 1 if find_class(module, name) may run, else 0. Lengths in bytes (UTF-8;
 * embedded NULs compare as bytes). */
int cpk_policy_names_has(const cpk_policy_names *n, const char *module,
                         size_t module_len, const char *name,
                         size_t name_len);

#endif
