w.cache_parameters = lambda: {'maxsize': None, 'typed': True}
