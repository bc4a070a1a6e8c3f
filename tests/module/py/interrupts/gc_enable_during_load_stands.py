for case in cases:
    gc.disable()
    run(case[0], 'Enables', *case[1:])
    assert gc.isenabled(), ('gc.enable() undone', case)
gc.enable()
