"""The names a bisection and its probe child share (the child imports nothing else of ours)."""

#: The variable a bisection probe (probe.py) reads its tests and its output file from.
PROBE_ENV = "CARETAKER_PROBE"
