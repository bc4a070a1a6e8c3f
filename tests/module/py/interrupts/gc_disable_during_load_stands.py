for case in cases:
    gc.enable()
    run(case[0], 'Disables', *case[1:])
    assert not gc.isenabled(), ('gc.disable() undone', case)
gc.enable()
