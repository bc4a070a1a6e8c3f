class AppError(Exception):
    pass
try:
    raise AppError('app') from exc
except AppError as e:
    app = e
if sys.version_info >= (3, 11):
    try:
        raise ExceptionGroup('many', [app, exc])
    except ExceptionGroup as g:
        app = g
