del sd._clear_cache
sd.extra = 7
