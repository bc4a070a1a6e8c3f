# collections.ChainMap called (vouchable), then SETITEM into its result,
# then a second BUILD on a namespace a first BUILD gave state.
assert r['strict_violation'] is True and r['truncated'] is False
assert r['n_state'] == 3 and r['n_state_vouchable'] == 1
assert [w['offset'] for w in r['state_writes']] == [282, 305, 350]
assert entry(282) == {
    'offset': 282, 'opcode': 82, 'kind': 'call', 'target_offset': 254,
    'module': 'collections', 'name': 'ChainMap',
    'text': 'REDUCE at byte 282 calls collections.ChainMap, whose result the '
            'scan cannot vouch for (it may return or write through to its '
            'arguments)'}, entry(282)
w = entry(305)
assert w['opcode'] == ord('s') and w['kind'] == 'opaque', w
assert w['target_offset'] == 282, w
assert w['module'] is None and w['name'] is None, w
assert w['text'].startswith('SETITEM at byte 305 gives state to'), w
w = entry(350)
assert w['opcode'] == ord('b') and w['kind'] == 'opaque', w
assert w['target_offset'] == 337, w
assert 'after a BUILD at byte 337' in w['text'], w
