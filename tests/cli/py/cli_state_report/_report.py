# The --json document on stdin as `r`; entry(offset): its one state write.
import json, sys
raw = sys.stdin.buffer.read()
assert raw.endswith(b'\n') and raw.count(b'\n') == 1, raw
r = json.loads(raw.decode('utf-8'))
assert list(r)[-6:] == ['functions', 'classes', 'load_calls', 'state_writes',
                        'n_state', 'n_state_vouchable'], list(r)
def entry(off):
    hits = [w for w in r['state_writes'] if w['offset'] == off]
    assert len(hits) == 1, (off, r['state_writes'])
    return hits[0]
