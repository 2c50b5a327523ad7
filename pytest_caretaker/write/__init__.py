"""--heal-write: put verified fixes on disk atomically and commit them with git."""
