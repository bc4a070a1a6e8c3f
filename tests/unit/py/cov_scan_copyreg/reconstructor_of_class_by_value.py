for proto in (0, 1):
    data = refused(C(), proto, 'creates an instance of a class carried by value (its methods may run: __new__, __init__, __setstate__, __setattr__, __hash__...) C')
    assert b'_reconstructor' in data
    assert ran == []
    obj = cp.loads(data)
    assert type(obj).__name__ == 'C' and obj.v == 1
    assert ran == ['setstate']
    ran.clear()
