import ccloudpickle as cp
class Bad:
    def __mro_entries__(self, bases):
        raise ValueError('no entries')
class G:
    pass
G.__orig_bases__ = (Bad(),)
cp.dumps(G)
