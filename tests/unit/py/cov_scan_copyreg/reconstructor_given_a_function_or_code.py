refused(R(copyreg._reconstructor, (f, object, None)), 5,
        'calls a function carried by value f')
refused(R(copyreg._reconstructor, (f.__code__, object, None)), 5,
        'passes code carried by value to a callable that may '
        'call it f')
