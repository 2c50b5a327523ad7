from listed_files import visible


def test_an_empty_folder():
    assert visible([]) == []


def test_dot_files_are_hidden():
    assert visible([".git", "README.md", ".env", "setup.py"]) == ["README.md", "setup.py"]
