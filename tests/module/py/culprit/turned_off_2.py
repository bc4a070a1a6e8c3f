class Bad:
    def __bool__(self):
        raise ValueError('no bool')
cp.dumps(1, diagnose=Bad())
