# Class keywords (class CsvReader(Reader, fmt="csv")) reach
# __init_subclass__ and the metaclass again when the classes are rebuilt:
# the registry maps each format to its rebuilt reader, and a metaclass
# whose __new__ and __init__ require a keyword gets it.
import json


class Reader:
    registry = {}

    def __init_subclass__(cls, fmt, **kw):
        super().__init_subclass__(**kw)
        Reader.registry[fmt] = cls
        cls.fmt = fmt

    def read(self, text):
        raise NotImplementedError


class CsvReader(Reader, fmt="csv"):
    def read(self, text):
        return text.split(",")


class JsonReader(Reader, fmt="json"):
    def read(self, text):
        return json.loads(text)


class TsvReader(CsvReader, fmt="tsv"):
    def read(self, text):
        return text.split("\t")


def read(fmt, text):
    return Reader.registry[fmt]().read(text)


class Kinded(type):
    # Both require the keyword: no class is made without it.
    def __new__(mcls, name, bases, ns, *, kind):
        cls = super().__new__(mcls, name, bases, ns)
        cls.kind = kind
        return cls

    def __init__(cls, name, bases, ns, *, kind):
        super().__init__(name, bases, ns)
        cls.label = "%s:%s" % (kind, name)


class Model(metaclass=Kinded, kind="model"):
    pass


class View(Model, kind="view"):
    pass


def make():
    return read, CsvReader, JsonReader, TsvReader, View
# --- load ---
read, CsvReader, JsonReader, TsvReader, View = obj
Reader = CsvReader.__mro__[1]
# The registry maps each format to the rebuilt class, the same objects.
assert Reader.registry == {"csv": CsvReader, "json": JsonReader,
                           "tsv": TsvReader}, Reader.registry
assert Reader.registry["csv"] is CsvReader
assert read("csv", "a,b") == ["a", "b"]
assert read("json", "[1, 2]") == [1, 2]
assert read("tsv", "a\tb") == ["a", "b"]
assert (CsvReader.fmt, TsvReader.fmt) == ("csv", "tsv")
# A subclass defined after loading registers too (the hook works).
class XmlReader(Reader, fmt="xml"):
    pass
assert Reader.registry["xml"] is XmlReader
# Metaclass keywords.
Model = View.__mro__[1]
assert (Model.kind, View.kind) == ("model", "view")
assert (Model.label, View.label) == ("model:Model", "view:View")
Kinded = type(View)
class Form(Model, kind="form"):
    pass
assert Form.label == "form:Form"
