# A module on disk registered to be pickled by value: loaded where it does
# not exist, the module and its functions share one namespace.
import os
import sys
import tempfile

_dir = tempfile.mkdtemp()
with open(os.path.join(_dir, "cpk_rates_plugin.py"), "w") as f:
    f.write(
        "RATE = 0.2\n"
        "def tax(x):\n"
        "    return round(x * RATE, 6)\n"
        "def total(x):\n"
        "    return x + tax(x)\n"
    )
sys.path.insert(0, _dir)
import cpk_rates_plugin  # noqa: E402

_pickler = sys.modules.get("ccloudpickle") or sys.modules.get("cloudpickle")
if _pickler is not None:
    _pickler.register_pickle_by_value(cpk_rates_plugin)


def make():
    import shutil
    shutil.rmtree(_dir)
    return cpk_rates_plugin, cpk_rates_plugin.total
# --- load ---
import sys
plugin, total = obj
assert "cpk_rates_plugin" not in sys.modules
assert total is plugin.total
assert plugin.total(10) == 12.0
plugin.RATE = 0.5
assert plugin.tax(10) == 5.0 and total(10) == 15.0
assert plugin.tax.__globals__ is vars(plugin)
