"""The project's smoke check: each wrong result is printed as path:line: what went wrong."""

import inspect
import sys

import invoice

CASES = [
    (invoice.discounted, (200, 10), 180),
    (invoice.total, ([(2, 5.0), (1, 3.0)],), 13.0),
]

wrong = 0
for function, args, expected in CASES:
    got = function(*args)
    if got != expected:
        line = inspect.getsourcelines(function)[1]
        call = f"{function.__name__}({', '.join(map(repr, args))})"
        print(f"invoice.py:{line}: {call} returned {got!r}, expected {expected!r}")
        wrong += 1
sys.exit(1 if wrong else 0)
