from backup_name import backup_name, temporary_name


def test_backup_of_a_file():
    assert backup_name("notes.txt") == "notes.txt.bak"


def test_backup_of_a_file_in_a_folder():
    assert backup_name("docs/notes.txt") == "docs/notes.txt.bak"


def test_temporary_name():
    assert temporary_name("notes.txt") == "notes.txt.tmp"
