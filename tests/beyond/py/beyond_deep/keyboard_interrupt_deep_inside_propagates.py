class Stop:
    def __reduce__(self):
        raise KeyboardInterrupt
try:
    ccloudpickle.dumps(chain(50000, Stop()))
except KeyboardInterrupt:
    pass
else:
    raise AssertionError('no KeyboardInterrupt')
assert length(ccloudpickle.loads(ccloudpickle.dumps(chain(5000)))) == 5000
