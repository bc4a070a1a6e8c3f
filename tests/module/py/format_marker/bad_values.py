def fails(exc, msg, **kw):
    for call in (lambda: cp.dumps(task, **kw),
                 lambda: cp.dump(task, io.BytesIO(), **kw),
                 lambda: cp.Pickler(io.BytesIO(), **kw)):
        try:
            call()
        except exc as e:
            assert str(e) == msg, (str(e), msg)
        else:
            raise AssertionError(kw)
rng = 'format must be 1 to 5 (the formats of ccloudpickle 0.1.0 '
rng += 'to %s), not ' % cp.__version__
fails(ValueError, rng + '0', format=0)
fails(ValueError, rng + '6', format=6)
fails(ValueError, rng + '-1', format=-1)
fails(ValueError, rng + str(2**70), format=2**70)
fails(TypeError, 'format must be an int or None, not str',
      format='5')
fails(TypeError, 'format must be an int or None, not bool',
      format=True)
fails(ValueError, "format= cannot be combined with compat=: "
      "format= numbers ccloudpickle's formats, compat= names a "
      "stock cloudpickle", format=4, compat='cloudpickle3')
