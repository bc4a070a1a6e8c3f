def boom(tb):
    raise RuntimeError('cannot format')
traceback.format_tb = boom
cp.dumps(exc)
