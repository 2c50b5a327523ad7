"""Code (record/code.py): the secrets a project's Python code holds in literals, learnt so that a
failure showing the value alone (a diff, a print, a test id) shows a marker. Each case is a
dedented source and the values it must (and must not) teach."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pytest_caretaker.project.files import ProjectFiles
from pytest_caretaker.record.code import from_files, from_prose
from pytest_caretaker.record.redact import Redactor

UUID = "8c1e5f3a-2b7d-4e9f-a1c6-0d3b5e7f9a21"
CASES = {
    "assigned to a secret's name": ('DB_PASSWORD = "Sup3r-S3cret-77"\n', {"Sup3r-S3cret-77"}),
    "an attribute and an item": (
        'self.api_token = "tok-Aa11bb22"\nconf["secret"] = "s3cr3t-Val"\n',
        {"tok-Aa11bb22", "s3cr3t-Val"},
    ),
    "a keyword argument": ('connect(host="db", password="Gl4cier-Fern")\n', {"Gl4cier-Fern"}),
    "a positional argument through a def": (
        'def login(user, password):\n    pass\n\nlogin("ops", "Gl4cier-Fern-88")\n',
        {"Gl4cier-Fern-88"},
    ),
    "a positional argument through a class's __init__": (
        "class Account:\n    def __init__(self, name, pw):\n        self.name = name\n\n"
        'Account("ops", "Gl4cier-Fern-88")\n',
        {"Gl4cier-Fern-88"},
    ),
    "a positional argument through a dataclass's fields": (
        "@dataclass\nclass Login:\n    user: str\n    pw: str\n\n"
        'Login("bob", "it\'s-Bob\'s-pw9")\n',
        {"it's-Bob's-pw9"},
    ),
    "a dict literal": ('{"user": "app", "passwd": "Pa55-word"}\n', {"Pa55-word"}),
    "a default": ('def make(user="app", token="tk-1234abcd"):\n    pass\n', {"tk-1234abcd"}),
    "what a secret-named function returns": (
        f'def api_key():\n    return "{UUID}"\n',
        {UUID},
    ),
    "a UUID under a key's name": (
        f'key = "{UUID}"\n',
        {UUID},
    ),
    "literals joined into a secret-shaped value, and their source": (
        'sign("payload", "Zq8vL2" + "mW9xKp4T" + "a7Rq3nB")\n',
        {"Zq8vL2mW9xKp4Ta7Rq3nB", '"Zq8vL2" + "mW9xKp4T" + "a7Rq3nB"'},
    ),
    "a parametrize value of a secret-named argument": (
        '@pytest.mark.parametrize("user, pw", [("bob", "Tr0ub4dor&3x")])\ndef test_x(user, pw):\n'
        "    pass\n",
        {"Tr0ub4dor&3x"},
    ),
    "every parametrize value of a test about passwords": (
        '@pytest.mark.parametrize("candidate", ["Tr0ub4dor&3x", pytest.param("hunter22")])\n'
        "def test_weak_passwords_are_rejected(candidate):\n    pass\n",
        {"Tr0ub4dor&3x", "hunter22"},
    ),
    "a docstring": (
        'def test_admin():\n    """Log in with the admin credentials: admin / Adm1n-Seed-2024"""\n',
        {"Adm1n-Seed-2024"},
    ),
    "a docstring's user / password pair (#46)": (
        'def test_admin():\n    """Seeded admin: admin / Adm1n-Seed-7731 (see the fixtures)."""\n',
        {"Adm1n-Seed-7731"},
    ),
    "a (user, password) pair under a neutral name (#46)": (
        'ACCOUNT = ("svc", "N0rth-Star-88x")\n',
        {"N0rth-Star-88x"},
    ),
    "a UUID named after the service it opens (#46)": (
        f'MAILGUN = "{UUID}"\n',
        {UUID},
    ),
    "a password-shaped parametrize value under a neutral name (#46)": (
        '@pytest.mark.parametrize("value", ["Tr0ub4dor&3xy", "short"])\n'
        "def test_long_values_are_accepted(value):\n    pass\n",
        {"Tr0ub4dor&3xy"},
    ),
    "a URL's password in any string": (
        'ENGINE = create_engine("postgres://app:pg-Pw-9x@db/app")\n',
        {"pg-Pw-9x"},
    ),
}
#: Ordinary code: nothing in it is a secret.
ORDINARY = [
    'key = "name"\nitems.sort(key="price")\n',
    'token_type = "bearer"\nPASSWORD_FIELD = "password"\napi_key_env = "OPENAI_API_KEY"\n',
    'password = os.environ["DB_PASSWORD"]\ntoken: str = ""\nsecret = "${SECRET}"\n',
    'help_text = "Your password must have 8 characters"\n',
    'assert password_problems("abc") == ["too short"]\nlabel = "Content" + "-Type"\n',
    'url = "https://example.org/a" + "/b"\nuser_id = "3f0c2b1e-0000-4000-8000-000000000001"\n',
    'def test_parse(): \n    """Parses the key: value pairs of a header."""\n',
    'request_id = "3f0c2b1e-0000-4000-8000-000000000001"\n'
    'NAMESPACE_UUID = "3f0c2b1e-0000-4000-8000-000000000002"\n',
    '@pytest.mark.parametrize("when", ["2024-01-01T10:00:00Z", "Base64Encoder", "Test_1.py"])\n'
    "def test_parse(when):\n    pass\n",
    'PAIRS = [("text", "text/html"), ("GET", "HTTP_404"), ("en_US", "UTF-8")]\n'
    'SHOWN = ("task", "<shop.Task object at 0x7f00>")\n',
    "def test_paths():\n"
    '    """Reads src / App1.py and docs/Guide-2.md, as actions/checkout@v4 does."""\n',
    # A version's or a lexer's token is a word (semver's bump_build): redacted, "build" was cut
    # out of every test id, transcript and last-run.json of the project.
    "def bump_build(version, token='build'):\n    pass\n\n\nnext_token = \"prerelease\"\n",
]


def learnt(tmp_path: Path, source: str, name: str = "mod.py") -> set[str]:
    (tmp_path / name).write_text(textwrap.dedent(source), encoding="utf-8")
    return {value for value, _ in from_files(ProjectFiles(tmp_path), [name])}


@pytest.mark.parametrize("name", CASES)
def test_each_placement_is_learnt(tmp_path: Path, name: str) -> None:
    source, expected = CASES[name]

    assert expected <= learnt(tmp_path, source)


@pytest.mark.parametrize("source", ORDINARY)
def test_ordinary_code_teaches_nothing(tmp_path: Path, source: str) -> None:
    assert learnt(tmp_path, source) == set()


def test_a_signature_is_found_in_an_imported_project_file(tmp_path: Path) -> None:
    (tmp_path / "accounts.py").write_text("def open_account(name, passphrase):\n    pass\n")
    source = 'from accounts import open_account\n\nopen_account("ops", "correct-Horse-9")\n'

    assert "correct-Horse-9" in learnt(tmp_path, source, "test_accounts.py")


def test_a_redactor_learns_a_file_once_and_redacts_the_value_alone(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text('DB_PASSWORD = "Sup3r-S3cret-77"\n')
    redactor = Redactor()

    redactor.learn_code(tmp_path, ["test_x.py", "test_x.py", "missing.py", "notes.txt"])
    (tmp_path / "test_x.py").write_text('DB_PASSWORD = "0ther-S3cret-88"\n')
    redactor.learn_code(tmp_path, ["test_x.py"])

    shown = redactor("assert 'Sup3r-S3cret-77' == '0ther-S3cret-88'")
    assert "Sup3r-S3cret-77" not in shown and "0ther-S3cret-88" in shown
    assert "value of DB_PASSWORD in test_x.py" in shown


def test_a_file_that_does_not_parse_teaches_nothing(tmp_path: Path) -> None:
    assert learnt(tmp_path, 'password = "Sup3r-S3cret-77"\ndef (:\n') == set()


@pytest.mark.parametrize(
    ("prose", "expected"),
    [
        ("The password for the ops account is Gl4cier-Fern-88; ask Ann.", ["Gl4cier-Fern-88"]),
        (f"Use the token {UUID} in staging.", [UUID]),
        ("The password must have 8 characters. Use Tr0ub4dor&3x elsewhere.", []),
        ("Tokens are UTF-8 strings of at most 64 characters.", []),
        ("Returns the key: value pairs, e.g. Content-Type.", []),
        # Code in a docstring (marshmallow's fields.Dict): a reference, not a secret; redacted,
        # it cut `fields.Str` out of every prompt and transcript of the project.
        ("Example: numbers = fields.Dict(keys=fields.Str(), values=fields.Float())", []),
        ("Pass a `Schema <marshmallow.Schema>` class as the key argument.", []),
    ],
)
def test_prose_teaches_the_secret_shaped_word_after_a_secrets_name(
    prose: str, expected: list[str]
) -> None:
    assert list(from_prose(prose)) == expected
