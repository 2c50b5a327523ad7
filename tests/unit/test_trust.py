"""Where the CA certificates are that sandboxed runs are shown (verify/trust.py)."""

from __future__ import annotations

import os
import ssl
from pathlib import Path

import pytest

from pytest_caretaker.verify import trust


def test_a_bundle_the_environment_names_is_shown_with_the_folders_its_links_lead_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, certs = tmp_path / "store", tmp_path / "etc-certs"
    store.mkdir()
    certs.mkdir()
    (store / "authority.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    (certs / "5ad8a5d6.0").symlink_to(store / "authority.pem")  # a capath's hashed name
    bundle = tmp_path / "corporate.pem"
    bundle.write_text("-----BEGIN CERTIFICATE-----\n")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    found = trust.locations({"SSL_CERT_FILE": str(bundle), "SSL_CERT_DIR": str(certs)})

    assert {str(bundle), str(certs), str(store)} <= set(found)


def test_what_openssl_and_certifi_read_is_shown() -> None:
    paths = ssl.get_default_verify_paths()
    found = trust.locations({})

    for path in (paths.cafile, paths.capath, trust.certifi_bundle()):
        if path and os.path.exists(path):
            assert path in found or os.path.realpath(path) in found


@pytest.mark.parametrize("named", ["/", "home", "above home"])
def test_a_place_that_holds_home_is_never_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: str
) -> None:
    home = tmp_path / "above" / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    path = {"/": "/", "home": str(home), "above home": str(home.parent)}[named]

    found = trust.locations({"SSL_CERT_DIR": path, "REQUESTS_CA_BUNDLE": path})

    assert path not in found
    assert not [p for p in found if str(home).startswith(p.rstrip("/") + "/") or p == str(home)]
