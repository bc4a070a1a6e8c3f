refused(R(copyreg.__newobj__, (C,)), 1, 'creates an instance of a class carried by value (its methods may run: __new__, __init__, __setstate__, __setattr__, __hash__...) C')
refused(R(copyreg.__newobj_ex__, (C, (), {})), 1, 'creates an instance of a class carried by value (its methods may run: __new__, __init__, __setstate__, __setattr__, __hash__...) C')
obj = cp.loads(cp.dumps(R(copyreg.__newobj__, (C,)), 1))
assert type(obj).__name__ == 'C' and not hasattr(obj, 'v')
