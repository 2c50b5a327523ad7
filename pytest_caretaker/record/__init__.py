"""Record: what a failure left behind, as plain data, with its secrets kept out."""
