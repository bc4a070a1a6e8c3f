cp._singledispatch_fill(sd, ((), {'__name__': 5}))
