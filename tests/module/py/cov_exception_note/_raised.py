import ccloudpickle as cp, sys, traceback
def fail():
    1 / 0
try:
    fail()
except ZeroDivisionError as e:
    exc = e
