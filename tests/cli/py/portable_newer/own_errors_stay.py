import ccloudpickle as cp, pickle
def fails(name, cls, text):
    data = open(NEWER + '/' + name, 'rb').read()
    try:
        cp.loads(data)
    except Exception as e:
        assert type(e) is cls, (name, repr(e))
        assert str(e).startswith(text), (name, str(e))
        assert e.__cause__ is None, (name, repr(e.__cause__))
    else:
        raise AssertionError(name + ' loaded')
fails('setstate.pkl', ValueError, "refused state ['value']")
fails('gone_module.pkl', ModuleNotFoundError,
      "No module named 'cpk_newer_gone'")
fails('gone_name.pkl', AttributeError,
      "Can't get attribute 'cpk_gone_name' on <module 'math'")
