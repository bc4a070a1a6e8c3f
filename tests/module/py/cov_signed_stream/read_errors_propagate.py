class Boom:
    def read(self, n=-1):
        raise OSError('disk gone')
cp.load(Boom(), verify_key=key)
