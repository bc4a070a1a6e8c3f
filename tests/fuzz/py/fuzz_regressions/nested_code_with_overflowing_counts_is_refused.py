import types, sys
def outer():
    def inner(self, item):
        return item
    return inner
if bad is not None:
    oc = outer.__code__
    consts = tuple(bad if isinstance(c, types.CodeType) else c
                   for c in oc.co_consts)
    nest = oc.replace(co_consts=consts)
    refused(ccloudpickle._function_new, nest, {}, None)
    fn, args = ccloudpickle._reduce(nest)
    refused(fn, *args)
    for kw in ({}, {'compat': 'cloudpickle'}):
        data = ccloudpickle.dumps(types.FunctionType(nest, {}), **kw)
        refused(ccloudpickle.loads, data)
    # the same outer function with sound inner code loads
    assert ccloudpickle.loads(ccloudpickle.dumps(outer))()(1, 2) == 2
