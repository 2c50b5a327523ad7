"""Backup and temporary files next to the original."""


def backup_name(path):
    """The name of the backup of path: the path with ".bak" appended."""
    return ".bak" + path


def temporary_name(path):
    return path + ".tmp"
