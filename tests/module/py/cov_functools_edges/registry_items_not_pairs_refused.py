class Reg(dict):
    def items(self):
        return [(int,)]
sd.__dict__['registry'] = Reg(sd.registry)
cp.dumps(sd)
