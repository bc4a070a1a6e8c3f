# contextvars.ContextVar globals: same name and default (none stays none),
# one object per variable across a dump; the value set in the dumping
# context stays there.
import contextvars

REQUEST_ID = contextvars.ContextVar("request_id", default="-")
USER = contextvars.ContextVar("user")


def handle(rid):
    REQUEST_ID.set(rid)
    return log("handled")


def log(msg):
    return "[%s] %s" % (REQUEST_ID.get(), msg)


def whoami():
    return USER.get("nobody")


def make():
    REQUEST_ID.set("dump-time")
    USER.set("alice")
    return handle, log, whoami, (REQUEST_ID, USER)
# --- load ---
import contextvars
handle, log, whoami, (rid, user) = obj
assert type(rid) is contextvars.ContextVar and rid.name == "request_id"
assert handle.__globals__["REQUEST_ID"] is rid is log.__globals__["REQUEST_ID"]
assert log("x") == "[-] x", log("x")           # the default; not "dump-time"
assert whoami() == "nobody"                      # USER's value stayed behind
try:
    user.get()
except LookupError:
    pass
else:
    raise AssertionError("a ContextVar without default got one")
# set through one function, seen by the other
assert handle("r1") == "[r1] handled"
assert log("y") == "[r1] y"
ctx = contextvars.copy_context()
assert ctx.run(lambda: (rid.set("r2"), log("z"))[1]) == "[r2] z"
assert log("y") == "[r1] y"
