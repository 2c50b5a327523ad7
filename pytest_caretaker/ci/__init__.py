"""Results CI can read: ``.caretaker/last-run.json`` (last_run.py; its problems problems.py, its
text texts.py, its JSON Schema last-run.schema.json), the ``caretaker_*`` properties of
``--junitxml``'s test cases (junit.py, session_end.py), and a Markdown job summary of the fixes
(job_summary.py, ``caretaker summary``)."""
