def g(self, *a):
    hit('g')
class K:
    x = 1
refused([R(cp._class_setstate, (K, ({'__init__': g}, {}))),
         R(K, ())], 'a second _class_setstate', live=False)
