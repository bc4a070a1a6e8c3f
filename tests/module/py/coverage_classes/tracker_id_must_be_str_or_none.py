import ccloudpickle
K = ccloudpickle._make_skeleton_class(type, 'K', (object,),
    {'__module__': '__main__'}, None, None)
K2 = ccloudpickle._make_skeleton_class(type, 'K', (object,),
    {'__module__': '__main__'}, None, None)
assert K is not K2 and K.__name__ == 'K'
a = ccloudpickle._make_skeleton_class(type, 'T', (object,),
    {'__module__': '__main__'}, 'feedbeef', None)
b = ccloudpickle._make_skeleton_class(type, 'T', (object,),
    {'__module__': '__main__'}, 'feedbeef', None)
assert a is b
