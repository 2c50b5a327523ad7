from visible_files import visible_files

NAMES = [".git", "README.md", ".env", "setup.py"]


def test_hidden_files_are_left_out_by_default():
    assert visible_files(NAMES) == ["README.md", "setup.py"]


def test_show_hidden_lists_everything_in_order():
    assert visible_files(NAMES, show_hidden=True) == NAMES


def test_an_empty_directory():
    assert visible_files([]) == []
    assert visible_files([], show_hidden=True) == []
