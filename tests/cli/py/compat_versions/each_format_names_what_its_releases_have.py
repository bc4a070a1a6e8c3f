import pickletools
def strings(data):
    return {a for op, a, _ in pickletools.genops(data)
            if isinstance(a, str)}
def names(value):
    return strings(ccloudpickle.dumps(obj, compat=value))
v3, v22, v20 = names('3.1.2'), names('2.2'), names('cloudpickle2')
assert names('cloudpickle') == v3 == names('cloudpickle3')
assert names('2.1') == v22 and names('2.0.0') == v20
assert '_make_function' in v3 and '_make_function' in v22
assert '_make_function' not in v20
assert '_builtin_type' in v20
assert {'FunctionType', 'LambdaType'} & v20
sentinel = '_get_dataclass_field_type_sentinel'
assert sentinel in v3 and sentinel not in v22 | v20
assert {'dataclasses', '_FIELD', '_FIELD_CLASSVAR'} <= v22
assert {'dataclasses', '_FIELD', '_FIELD_CLASSVAR'} <= v20
for v in (v3, v22, v20):
    assert {'cloudpickle.cloudpickle_fast', '_function_setstate',
            '_class_setstate', '_make_skeleton_class',
            '_make_skeleton_enum', '_make_typevar'} <= v
