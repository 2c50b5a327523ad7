"""What caretaker knows of the user's code: its files, and which functions may hold a bug."""
