m1 = types.ModuleType('m1')
m2 = types.ModuleType('m2')
exec('class X:\n    pass\n'
     'def meth(self):\n    return X\n', m2.__dict__)
m2.X.meth = m2.meth
m1.X = m2.X
exec('def a():\n    return X\n', m1.__dict__)
import ccloudpickle
