import cloudpickle, cloudpickle.cloudpickle_fast as cf
import pickle
def cp20(obj, proto):
    saved = cf._make_function
    cf._make_function = types.FunctionType
    try:
        d = cloudpickle.dumps(obj, protocol=proto)
    finally:
        cf._make_function = saved
    assert b'_make_function' not in d, d
    assert b'LambdaType' in d, d
    return d
f2 = pickle.loads(cp20(outer(1, c=3), 2))
assert f2(1, flag=0) == 1 + 1 + 5 + 1 + 3 + 1 + 1
