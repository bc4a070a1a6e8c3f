for p, data in evil.items():
    refused(data, 'import policy refuses 1 import: posix.system (byte ', allow=[])
    refused(data, 'posix.system', deny=['posix'])
    refused(data, 'posix.system', deny=['posix.system'])
    refused(data, 'posix.system', allow=['os.*'])
    refused(data, 'posix.system', allow=['posix.system'],
            deny=['posix'])
refused(evil_os, 'os.system (byte 0)', allow=[])
refused(evil_os, 'os.system (byte 0)', deny=['os'])
refused(evil_os, 'os.system', deny=['os.system'])
refused(evil_os, 'os.system', allow=['mymod.*'])
refused(evil_os, 'os.system', deny=['*'])
assert not exists()
# the pickles are live: without a policy, or with one that
# permits them, they do run (so the refusals above mean
# something)
cp.loads(evil_os)
assert exists()
os.unlink(marker)
cp.loads(evil_os, allow=['os.system'], deny=['posix'])
assert exists()
os.unlink(marker)
cp.loads(evil[2], allow=['posix.system'])
assert exists()
