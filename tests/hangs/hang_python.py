# A Python program that hangs in a known function (tests/hangs): the timeout record must name
# this file, the line of the sleep and the function.
import sys
import time


def hang_here():
    while True:
        time.sleep(0.05)  # the line the record names


print("process %s: hanging in hang_here" % sys.argv[1], flush=True)
hang_here()
