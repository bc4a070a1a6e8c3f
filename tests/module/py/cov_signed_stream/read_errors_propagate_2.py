class Bad:
    def read(self, n=-1):
        return 5
cp.load(Bad(), verify_key=key)
