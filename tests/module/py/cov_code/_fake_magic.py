# Makes the next table build take the opcode-module path; `real` keeps
# the true magic for restoring it.
import importlib._bootstrap_external as ext, sys
real = ext._RAW_MAGIC_NUMBER
ext._RAW_MAGIC_NUMBER = real ^ 0x7
