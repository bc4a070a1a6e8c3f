before = gc.get_threshold()
for case in cases:
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            run(case[0], 'Interrupts', *case[1:])
            raise AssertionError('nothing raised')
        except KeyboardInterrupt as e:
            assert e.args == ('from user code',)
        assert gc.isenabled() == enabled
        assert gc.get_threshold() == before
gc.enable()
