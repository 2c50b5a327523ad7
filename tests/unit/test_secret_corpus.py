"""The secret corpus: realistic placements of a secret in what a failing test leaves behind
(assertion messages, captured output, reprs, test ids), as they would reach a prompt. Each one
must be redacted by the session's redactor: 0 leaks. The values are made up and assembled so
that no scanner takes them for real keys.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from pytest_caretaker.record.failure import record
from pytest_caretaker.record.redact import Redactor
from pytest_caretaker.report.files import file_name

HERE = Path(__file__).parent.resolve()

URL_SECRET = "p@ss w/rd%42"
JSON_SECRET = 'q"7\\zT-\u03ba9'
ENV = {
    "PGPASSWORD": "pg-Zx81-local",
    "SMTP_PASS": "Sm7p-relay-Key",
    "DB_PASSWORD": URL_SECRET,
    "API_SECRET": JSON_SECRET,
    "SESSION_SIGNING": "c00kie-Jar-Salt",
    "XDG_SESSION_TYPE": "wayland",
    "SESSION_TIMEOUT": "3600",
    "PATH": "/usr/local/bin:/usr/bin:/bin",
}
DOTENV = (
    "# local settings\nSMTP_HOST=mail.example.org\nSMTP_PASS_LOCAL='m41l-Pa55word'\nDEBUG=true\n"
)
NETRC = "machine api.example.com\n  login deploy\n  password n3tRc-Pw-55\n"
PGPASS = "# host:port:db:user:password\ndb.internal:5432:app:app:pgp4ss\\:Word\n"


@dataclass(frozen=True)
class Placement:
    name: str
    text: str
    secrets: tuple[str, ...]  # what must not survive (the secret as it appears in the text)


@dataclass
class Corpus:
    root: Path
    home: Path
    redactor: Redactor


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    (root / ".env").write_text(DOTENV)
    (root / ".env.example").write_text("SMTP_PASS_LOCAL=changeme-please\n")
    (home / ".netrc").write_text(NETRC)
    (home / ".pgpass").write_text(PGPASS)
    env = {**ENV, "HOME": str(home), "PWD": str(root), "OLDPWD": str(tmp_path)}
    return Corpus(root, home, Redactor.for_project(root, env, home))


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


SPLIT_KEY = "Zq8" + "vL2mW" + "9xKp4T"
PARAM_PASSWORD = "Tr0ub4dor&3"
TOKEN_IN_COOKIE = _b64('{"user": "ann", "signing": "c00kie-Jar-Salt", "exp": 17}')

#: Placements whose secret the redactor must recognise (by pattern) or know (from the
#: environment, .env, .netrc, .pgpass) before any test code runs.
STATIC = [
    Placement(
        "ini-pass-line",
        "----- Captured stdout call -----\n[smtp]\nhost = mail.example.org\nuser = app\n"
        "pass = Wint3r-Sun!42\n",
        ("Wint3r-Sun!42",),
    ),
    Placement(
        "fixture-repr-passcode",
        "E       assert <Door id=7 passcode=88124-7731 locked=True> is None",
        ("88124-7731",),
    ),
    Placement(
        "fixture-repr-passcode-quoted",
        "E       AssertionError: assert Door(id=7, passcode='88124-7731') == Door(id=7)",
        ("88124-7731",),
    ),
    Placement(
        "basic-auth-printed",
        "----- Captured stdout call -----\nGET /v1/me\nAuthorization: Basic "
        + _b64("alice:r3d-panda-99")
        + "\n<- 401\n",
        (_b64("alice:r3d-panda-99"),),
    ),
    Placement(
        "basic-auth-in-dict-repr",
        f"E   assert {{'Authorization': 'Basic {_b64('alice:r3d-panda-99')}'}} == {{}}",
        (_b64("alice:r3d-panda-99"),),
    ),
    Placement(
        "x-api-key-in-exception",
        "E   requests.exceptions.HTTPError: 403 Forbidden (sent X-Api-Key: 7f3k9Qm2xL8vW1pZ)",
        ("7f3k9Qm2xL8vW1pZ",),
    ),
    Placement(
        "smtp-pass-from-dotenv-in-dict",
        "E   AssertionError: assert {'SMTP_HOST': 'mail.example.org', "
        "'SMTP_PASS_LOCAL': 'm41l-Pa55word'} == {}",
        ("m41l-Pa55word",),
    ),
    Placement(
        "password-in-docstring",
        '    def test_login(client):\n        """Log in as admin with password Corr3ct-Horse,'
        ' which the fixture seeds."""\n>       assert client.login("admin")\nE       assert False',
        ("Corr3ct-Horse",),
    ),
    Placement(
        "dataclass-field-pw",
        "E   AssertionError: assert Credentials(user='bob', pw='b0b-s3cret!') == "
        "Credentials(user='bob', pw=None)",
        ("b0b-s3cret!",),
    ),
    Placement(
        "dataclass-field-pw-holding-a-quote",
        "E   AssertionError: assert Login(user='Bob', pw=\"it's-Bob's-pw9\") == "
        "Login(user='bob', pw=\"it's-Bob's-pw9\")",
        ("it's-Bob's-pw9",),
    ),
    Placement(
        "bytes-field-pw",
        "E   AssertionError: assert Login(user='bob', pw=b'b0b-Bytes!') == None",
        ("b0b-Bytes!",),
    ),
    Placement(
        "libpq-conninfo-pgpassword",
        "E   psycopg.OperationalError: connection failed: dbname=app user=app "
        "password=pg-Zx81-local host=db port=5432",
        ("pg-Zx81-local",),
    ),
    Placement(
        "pgpassword-alone",
        "E   AssertionError: assert 'pg-Zx81-local' == ''",
        ("pg-Zx81-local",),
    ),
    Placement(
        "printed-password",
        "----- Captured stdout call -----\ncreating user alice with password tulip-Orbit-7\n",
        ("tulip-Orbit-7",),
    ),
    Placement(
        "uuid-api-key",
        "E   ValueError: invalid api key 8c1e5f3a-2b7d-4e9f-a1c6-0d3b5e7f9a21 for project demo",
        ("8c1e5f3a-2b7d-4e9f-a1c6-0d3b5e7f9a21",),
    ),
    Placement(
        "url-encoded-env-secret",
        "E   sqlalchemy.exc.OperationalError: could not connect to "
        f"postgresql://app:{quote(URL_SECRET, safe='')}@db/app?sslmode=require",
        (quote(URL_SECRET, safe=""),),
    ),
    Placement(
        "form-encoded-env-secret",
        "----- Captured log call -----\n"
        f"DEBUG POST /login body=user=app&pw={quote_plus(URL_SECRET)}",
        (quote_plus(URL_SECRET),),
    ),
    Placement(
        "json-escaped-env-secret",
        "E   AssertionError: response body "
        + json.dumps({"detail": "bad credentials", "echo": JSON_SECRET})
        + " != {}",
        (json.dumps(JSON_SECRET)[1:-1],),
    ),
    Placement(
        "netrc-password",
        "E   RuntimeError: upload failed: 401 for deploy:n3tRc-Pw-55 at api.example.com",
        ("n3tRc-Pw-55",),
    ),
    Placement(
        "pgpass-password",
        "E   RuntimeError: FATAL: password authentication failed for user app (pgp4ss:Word)",
        ("pgp4ss:Word",),
    ),
    Placement(
        "smtp-pass-env-in-output",
        "E   smtplib.SMTPAuthenticationError: (535, b'5.7.8 not accepted') as relay / "
        "Sm7p-relay-Key",
        ("Sm7p-relay-Key",),
    ),
    Placement(
        "env-secret-inside-base64-cookie",
        f"E   AssertionError: cookie {TOKEN_IN_COOKIE} expired",
        (TOKEN_IN_COOKIE,),
    ),
]


def _connect() -> None:
    api_key = "Zq8" + "vL2mW" + "9xKp4T"  # a key split over three literals
    raise ConnectionError(f"401 from https://api.example.com/v2 for {api_key}")


def _rejects_weak(password: str = PARAM_PASSWORD) -> None:
    assert len(password) > 12, f"{password} was accepted"


def _recorded(corpus: Corpus, nodeid: str, function: Callable[[], None]) -> str:
    """function's failure, recorded as the session records it, as all the text it holds."""
    try:
        function()
    except Exception as error:
        failure = record(
            nodeid,
            "call",
            HERE / "test_secret_corpus.py",
            error,
            str(error),
            "",
            HERE,
            corpus.redactor,
        )
    else:
        raise AssertionError("did not fail")
    return repr(failure)


@pytest.mark.parametrize("placement", STATIC, ids=[p.name for p in STATIC])
def test_no_placement_leaks(corpus: Corpus, placement: Placement) -> None:
    for secret in placement.secrets:
        assert secret in placement.text  # the placement holds what it claims

    out = corpus.redactor(placement.text)

    leaked = [secret for secret in placement.secrets if secret in out]
    assert leaked == [], out
    assert "[redacted #" in out


def test_a_key_split_over_three_literals_is_redacted_by_its_joined_value(corpus: Corpus) -> None:
    out = _recorded(corpus, "tests/test_api.py::test_connect", _connect)

    assert SPLIT_KEY not in out
    assert "value of local api_key" in out


def test_a_parametrized_password_stays_out_of_the_test_id_and_its_file_name(
    corpus: Corpus,
) -> None:
    nodeid = f"tests/test_login.py::test_rejects_weak[{PARAM_PASSWORD}]"
    out = _recorded(corpus, nodeid, _rejects_weak)
    assert PARAM_PASSWORD not in out.replace(nodeid, "")  # the message and the locals

    shown = corpus.redactor(f"FAILED {nodeid} - AssertionError")
    name = file_name(nodeid, corpus.redactor)

    assert PARAM_PASSWORD not in shown
    for part in ("Tr0ub4dor", "Tr0ub4dor_3"):
        assert part not in name
    assert name.startswith("tests_test_login.py_test_rejects_weak_redacted_1_")
    assert file_name(nodeid, corpus.redactor) == name


def test_the_corpus_has_at_least_fifteen_placements() -> None:
    assert len(STATIC) + 2 >= 15


@pytest.mark.parametrize(
    "text",
    [
        "tests/test_calc.py::test_add[1-2-3] PASSED",
        "wayland session, timeout 3600 s, HOME set",
        "E   AssertionError: assert 'changeme-please' == ''",
        "E   KeyError: 'password'",
        "    def login(user: str, password: str, token: Optional[str] = None) -> bool:",
        "        key = sorted(items, key=len)",
        "        api_key = os.environ['API_KEY']",
        "E   assert mail.example.org == localhost",
    ],
)
def test_ordinary_text_of_the_same_project_is_left_alone(corpus: Corpus, text: str) -> None:
    assert corpus.redactor(text) == text


def test_the_working_directory_is_not_taken_for_a_secret(corpus: Corpus) -> None:
    text = f'  File "{corpus.root}/src/app.py", line 3, in main'

    assert corpus.redactor(text) == text
