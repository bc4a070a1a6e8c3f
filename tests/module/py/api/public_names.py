import ccloudpickle as cp, pickle, _pickle
for name in ('dumps', 'dump', 'loads', 'load', 'Pickler',
             'CloudPickler', 'DEFAULT_PROTOCOL', '__version__',
             'register_pickle_by_value',
             'unregister_pickle_by_value',
             'list_registry_pickle_by_value'):
    assert hasattr(cp, name), name
assert cp.CloudPickler is cp.Pickler
assert cp.DEFAULT_PROTOCOL == pickle.HIGHEST_PROTOCOL == 5
assert issubclass(cp.Pickler, _pickle.Pickler)
assert issubclass(cp.Unpickler, _pickle.Unpickler)
assert cp.PicklingError is pickle.PicklingError
assert cp.UnpicklingError is pickle.UnpicklingError
assert isinstance(cp.__version__, str) and cp.__version__
# reducer_override is C: no Python frame per object.
assert type(cp.Pickler.reducer_override).__name__ == 'method_descriptor'
