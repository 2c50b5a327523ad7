"""The heal history: what every heal session did, one JSON line per failing case in
``.caretaker/history.jsonl`` (record.py builds the records, store.py appends and reads them,
reasons.py sorts the reasons), and the page ``caretaker report`` makes of it (stats.py, charts.py,
page.py)."""

from __future__ import annotations

from pytest_caretaker.history.record import Outcome, Source, record_session
from pytest_caretaker.history.store import History, history_path, read

__all__ = ["History", "Outcome", "Source", "history_path", "read", "record_session"]
