# sources(data): what each _code_portable of a pickle carries ('tuple' or
# the non-portable str). other(data): load it as another CPython would,
# every _code_portable called with another magic and version "3.0.0".
import sys, io, os, pickle, importlib, linecache, tempfile
import ccloudpickle as cp
sys.path.insert(0, CPK_SOURCE_DIR + '/tests/portable')
def _spy(data, fake):
    seen = []
    def spy(version, magic, code, source):
        seen.append('tuple' if type(source) is tuple else source)
        if fake:
            version, magic = '3.0.0', magic + 1
        return cp._code_portable(version, magic, code, source)
    class U(pickle.Unpickler):
        def find_class(self, module, name):
            if name == '_code_portable':
                return spy
            return super().find_class(module, name)
    return U(io.BytesIO(data)).load(), seen
def sources(data):
    return _spy(data, False)[1]
def other(data):
    return _spy(data, True)[0]
def module(text, name):
    d = tempfile.mkdtemp()
    path = os.path.join(d, name + '.py')
    with open(path, 'w') as f:
        f.write(text)
    sys.path.insert(0, d)
    m = importlib.import_module(name)
    cp.register_pickle_by_value(m)
    return m, path
def rewrite(path, text):
    with open(path, 'w') as f:
        f.write(text)
    linecache.checkcache(path)
import fixture_mod, fixture_match
cp.register_pickle_by_value(fixture_mod)
cp.register_pickle_by_value(fixture_match)
M = fixture_mod
