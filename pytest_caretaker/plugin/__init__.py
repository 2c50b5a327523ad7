"""The pytest front end: ``pytest --heal``.

hooks.py is the entry point pytest loads in every run (options, ini keys, validation; nothing
heavy); session.py is the session object registered when healing is on (it heals after the run
and reports); recorder.py gathers what a run leaves for healing, in the session's process or in
each xdist worker; overlap.py starts what a heal needs at the first failure while the run goes
on; addopts.py keeps the run's options for the runs that verify a fix; unselected.py names the
tests the run did not run; review.py asks before each fix is written (``--heal-review``).
"""
