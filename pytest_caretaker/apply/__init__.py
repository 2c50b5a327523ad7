"""Apply edits to source bytes in memory with libcst, merge them, and show them as diffs."""
