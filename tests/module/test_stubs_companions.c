/* test_stubs_companions.c - the functions src/engine/glue.c forwards to the
 * companion modules (python/): install_alias, install_multiprocessing and
 * wrap. Their C text signatures (inspect.signature(ccloudpickle.X), from
 * the docstrings) and their stubs (stubs/ccloudpickle.pyi) must say what
 * the companion functions take (hostile review of issue 9, M2): names,
 * kinds and defaults of the parameters. (tests/packaging/test_packaging.c compares
 * the stubs with the module's own signatures.) */
#include "support.h"

#define STUB CPK_SOURCE_DIR "/stubs/ccloudpickle.pyi"

/* FORWARDED: name -> companion function. parts(sig): (name, kind,
 * default or EMPTY) per parameter. stub_parts(fn): the same from a stub
 * FunctionDef, defaults `...` read as "has a default" (ANY).
 * drift(tree): the names whose text signature or stub differs from the
 * companion's, with what each says. */
static const char checker[] =
    "import ast, inspect, ccloudpickle\n"
    "import _ccloudpickle_alias, _ccloudpickle_engines\n"
    "FORWARDED = {\n"
    "    'install_alias': _ccloudpickle_alias.install_alias,\n"
    "    'check_workers': _ccloudpickle_alias.check_workers,\n"
    "    'install_multiprocessing': _ccloudpickle_engines.install_multiprocessing,\n"
    "    'wrap': _ccloudpickle_engines.wrap,\n"
    "}\n"
    "EMPTY, ANY = object(), object()\n"
    "def parts(sig):\n"
    "    return [(p.name, p.kind.name,\n"
    "             EMPTY if p.default is p.empty else p.default)\n"
    "            for p in sig.parameters.values()]\n"
    "def stub_parts(fn):\n"
    "    a = fn.args\n"
    "    pos = [(x, 'POSITIONAL_ONLY') for x in a.posonlyargs]\n"
    "    pos += [(x, 'POSITIONAL_OR_KEYWORD') for x in a.args]\n"
    "    out = [(x.arg, k, EMPTY) for x, k in pos]\n"
    "    for i in range(len(a.defaults)):\n"
    "        j = len(out) - len(a.defaults) + i\n"
    "        out[j] = out[j][:2] + (ANY,)\n"
    "    if a.vararg: out.append((a.vararg.arg, 'VAR_POSITIONAL', EMPTY))\n"
    "    for x, d in zip(a.kwonlyargs, a.kw_defaults):\n"
    "        out.append((x.arg, 'KEYWORD_ONLY', EMPTY if d is None else ANY))\n"
    "    if a.kwarg: out.append((a.kwarg.arg, 'VAR_KEYWORD', EMPTY))\n"
    "    return out\n"
    "def loose(ps):\n"
    "    return [(n, k, EMPTY if d is EMPTY else ANY) for n, k, d in ps]\n"
    "def drift(tree):\n"
    "    stubs = {n.name: n for n in tree.body\n"
    "             if isinstance(n, ast.FunctionDef)}\n"
    "    bad = []\n"
    "    for name, companion in sorted(FORWARDED.items()):\n"
    "        want = parts(inspect.signature(companion))\n"
    "        text = parts(inspect.signature(getattr(ccloudpickle, name)))\n"
    "        if text != want:\n"
    "            bad.append(('text signature', name, text, want))\n"
    "        stub = stub_parts(stubs[name]) if name in stubs else None\n"
    "        if stub != loose(want):\n"
    "            bad.append(('stub', name, stub, want))\n"
    "    return bad\n"
    "with open('" STUB "') as f:\n"
    "    SOURCE = f.read()\n"
    "TREE = ast.parse(SOURCE, '" STUB "')\n";

TestSuite(stubs_companions, .init = cpk_py_start, .fini = cpk_py_stop);

Test(stubs_companions, forwarders_match_the_companions)
{
    cpk_py(checker);
    cpk_py("bad = drift(TREE)\n"
           "assert not bad, 'forwarded signatures differ (where, name, "
           "says, companion): %r' % bad\n"
           "assert str(inspect.signature(ccloudpickle.wrap)) == "
           "'(obj, keep_wrapper=True)'\n"
           "assert str(inspect.signature(ccloudpickle.install_multiprocessing))"
           " == '(enable=True, warn_globals=1048576)'\n"
           "assert str(inspect.signature(ccloudpickle.install_alias)) == "
           "'(*, replace=False, compat=None)'\n");
}

/* The other side: a stub or a companion that drifts is caught. */
Test(stubs_companions, drift_is_caught)
{
    cpk_py(checker);
    cpk_py_file("drift_is_caught.py");
}
