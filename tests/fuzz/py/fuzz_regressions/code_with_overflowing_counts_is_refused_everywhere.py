def checks():
    # As marshal bytes (our format) and as constructor fields (code
    # marshal cannot write), both as _reduce would pickle it.
    fn, args = ccloudpickle._reduce(bad)
    assert fn is ccloudpickle._code_unmarshal, fn
    refused(fn, *args)
    odd = bad.replace(co_consts=(None, object()))
    fn, args = ccloudpickle._reduce(odd)
    assert fn is ccloudpickle._code_new, fn
    refused(fn, *args)
    # The reconstructors that make a function of a code object.
    refused(ccloudpickle._function_new, bad, {}, None)
    refused(ccloudpickle._function_make, bad, {}, None, {})
    # and as its code inline: _code_unmarshal's arguments
    refused(ccloudpickle._function_make,
            ccloudpickle._reduce(bad)[1], {}, None, {})
    refused(ccloudpickle._make_function, bad, {}, 'f', None, None)
    # Or as the __code__ the state gives a function.
    # a function a load made (fills take no other)
    g = ccloudpickle._function_new(
        (lambda self, item: item).__code__, {}, None)
    refused(ccloudpickle._function_fill, g, {'__code__': bad})
    refused(ccloudpickle._function_setstate, g,
            (None, {'__code__': bad}))
    assert g.__code__ is not bad
    ccloudpickle._function_fill(g, {'__code__': f.__code__})
    assert g(1, 2) == 2
    # A whole pickle of a function with that code.
    import types
    for kw in ({}, {'compat': 'cloudpickle'}):
        data = ccloudpickle.dumps(types.FunctionType(bad, {}), **kw)
        refused(ccloudpickle.loads, data)
import sys
assert bad is not None or sys.version_info < (3, 11)
if bad is not None:
    checks()
