sys.modules['traceback'] = None
cp.dumps(exc)
