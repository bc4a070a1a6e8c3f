# A module made at run time (types.ModuleType, importable nowhere): its
# functions keep the module's namespace as their globals after loading.
import types

plugin = types.ModuleType("plugin")
exec(
    "RATE = 0.2\n"
    "def tax(x):\n"
    "    return round(x * RATE, 6)\n"
    "def total(x):\n"
    "    return x + tax(x)\n"
    "def set_rate(r):\n"
    "    global RATE\n"
    "    RATE = r\n",
    plugin.__dict__,
)


def make():
    # The functions come before the module: the order must not matter.
    return plugin.tax, plugin.total, plugin
# --- load ---
tax, total, plugin = obj
assert tax is plugin.tax and total is plugin.total
assert tax.__globals__ is vars(plugin) is total.__globals__
assert plugin.tax(10) == 2.0 and plugin.total(10) == 12.0
plugin.RATE = 0.5
assert plugin.tax(10) == 5.0 and total(10) == 15.0
plugin.set_rate(0.1)
assert plugin.RATE == 0.1 and tax(10) == 1.0
plugin.tax = lambda x: 0
assert plugin.total(10) == 10  # total looks tax up in the module
assert plugin.__name__ == "plugin"
