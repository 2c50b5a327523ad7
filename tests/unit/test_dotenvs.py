"""Which of the project's .env files candidates see as empty: those no code of the project reads
(record/dotenvs.py); a file that a test reads stays readable to its tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_caretaker.record.dotenvs import unread

DOTENV = "SMTP_PASS=Sm7p-relay-Key-8842\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / ".env").write_text(DOTENV)
    (tmp_path / ".env.test").write_text(DOTENV)
    (tmp_path / ".env.example").write_text("SMTP_PASS=changeme\n")  # a template: no secret
    (tmp_path / "app.py").write_text("def f(x):\n    return x + 1\n")
    (tmp_path / "test_app.py").write_text("import app\n\n\ndef test_f():\n    assert app.f(1)\n")
    return tmp_path


def test_every_env_file_no_code_reads_is_blanked(root: Path) -> None:
    assert sorted(unread(root)) == [str(root / ".env"), str(root / ".env.test")]


@pytest.mark.parametrize(
    "code",
    [
        "from dotenv import load_dotenv\n\nload_dotenv()\n",
        "import environ\n\nenviron.Env.read_env()\n",
        "class Settings(BaseSettings):\n    model_config = SettingsConfigDict(env_file='x')\n",
    ],
    ids=["python-dotenv", "django-environ", "pydantic-settings"],
)
def test_a_loader_that_finds_env_files_by_itself_keeps_them_all(root: Path, code: str) -> None:
    (root / "settings").mkdir()
    (root / "settings" / "base.py").write_text(code)

    assert unread(root) == []


def test_a_file_named_in_a_literal_is_kept_and_the_others_blanked(root: Path) -> None:
    (root / "conftest.py").write_text(
        "from pathlib import Path\n\nENV = Path(__file__).parent / 'config' / '.env.test'\n"
        "OTHER = 'x.env'\n"
    )

    assert unread(root) == [str(root / ".env")]


def test_pytest_dotenv_keeps_them_all(root: Path) -> None:
    (root / "pytest.ini").write_text("[pytest]\nenv_files =\n    .env.test\n")

    assert unread(root) == []


def test_a_virtual_environment_is_not_the_project(root: Path) -> None:
    venv = root / "venv2" / "lib"
    venv.mkdir(parents=True)
    (root / "venv2" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "dotenv_main.py").write_text("def load_dotenv(): ...\n")

    assert len(unread(root)) == 2


def test_a_project_without_env_files_reads_no_code(tmp_path: Path) -> None:
    (tmp_path / "big.py").write_text("load_dotenv()\n")

    assert unread(tmp_path) == []
