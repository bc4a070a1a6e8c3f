import copyreg
copyreg.add_extension('posix', 'system', 240)
copyreg.add_extension('collections', 'OrderedDict', 241)
try:
    data = pickle.dumps(Evil(), protocol=2)
    harmless = pickle.dumps(__import__('collections')
                            .OrderedDict(a=1), protocol=2)
finally:
    copyreg.remove_extension('posix', 'system', 240)
assert b'\x82\xf0' in data
# any active policy: nothing proves the code is not denied
refused(data, 'extension code 240 (byte ', allow=['*'])
refused(data, 'extension code 240', deny=['nothing_here'])
refused(harmless, 'extension code 241', allow=[])
# without a policy the registry is used as pickle does
assert cp.loads(harmless) == {'a': 1}
copyreg.remove_extension('collections', 'OrderedDict', 241)
