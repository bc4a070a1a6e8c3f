f = cp._make_function(code1, {}, None, None,
                      (cell, cell, cell))
f()
