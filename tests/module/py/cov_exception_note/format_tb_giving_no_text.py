traceback.format_tb = lambda tb: [5]
cp.dumps(exc)
