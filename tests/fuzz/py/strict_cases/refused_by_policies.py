# Every regression pickle of the closed world (tests/fuzz/strict_cases
# and its found/ and review/ folders) is refused by loads(allow=[]) and by
# loads(deny=['os']) with a PolicyError, before anything runs: the
# carried function would record its call in builtins.
import builtins
import glob
import os
import sys
import ccloudpickle as cp

root = sys.argv[1]
files = sorted(glob.glob(os.path.join(root, '*.pkl')) +
               glob.glob(os.path.join(root, 'found', '*.pkl')) +
               glob.glob(os.path.join(root, 'review', '*.pkl')))
assert len(files) >= 60, files
bad = []
for f in files:
    data = open(f, 'rb').read()
    for kw in ({'allow': []}, {'deny': ['os']}):
        try:
            cp.loads(data, **kw)
        except cp.PolicyError:
            continue
        except Exception as e:
            bad.append('%s %r: %s' % (os.path.basename(f), kw, e))
            continue
        bad.append('%s %r: accepted' % (os.path.basename(f), kw))
assert not bad, '\n'.join(bad)
print(len(files))
