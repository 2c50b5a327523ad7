"""What the user sees: the summary, the transcripts, and the files caretaker leaves under
``.caretaker/``."""
