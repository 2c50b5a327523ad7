"""Where this machine keeps the certificates a TLS client trusts, for the sandbox's view.

A test that makes a TLS context (``ssl.create_default_context()``, the certifi bundle requests
and httpx load) reads the certificates of the authorities it trusts; when the sandboxed run
cannot, a download library's test fails, or retries until its time limit. The view shows
``/etc`` and ``/usr`` whole; these are the places beyond them: the files and folders OpenSSL was
built to read (a pyenv's, conda's, Homebrew's or uv's Python brings an OpenSSL of its own), the
ones the environment names (``SSL_CERT_FILE``, ``REQUESTS_CA_BUNDLE``…), certifi's bundle, and
where their links lead (``/etc/ssl/certs`` is links into ``/usr/share/ca-certificates``; on NixOS
into ``/nix/store``). An authority's certificate is public: nothing here is a secret. A place
that holds ``$HOME`` (or is ``/``) is never one of them. Standard library only.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import ssl
from collections.abc import Mapping

#: The system's certificate stores (Debian, Fedora, Arch, Alpine, SUSE, OpenSSL's own).
SYSTEM = (
    "/etc/ssl",
    "/etc/pki",
    "/etc/ca-certificates",
    "/usr/share/ca-certificates",
    "/usr/local/share/ca-certificates",
    "/usr/lib/ssl",
    "/usr/local/ssl",
)
#: The variables that name a bundle or a folder of certificates (OpenSSL's, requests', curl's).
VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")
#: The most entries of a folder whose links are followed.
MAX_LINKS = 4_000


def locations(env: Mapping[str, str]) -> list[str]:
    """The existing certificate files and folders of this machine and environment, and the
    folders their links lead to: absolute, without duplicates."""
    paths = ssl.get_default_verify_paths()
    named: list[str | None] = [
        *SYSTEM,
        paths.cafile,
        paths.capath,
        paths.openssl_cafile,
        paths.openssl_capath,
    ]
    named += [env.get(name) for name in VARIABLES]
    named.append(certifi_bundle())
    home = os.path.realpath(os.path.expanduser("~"))
    found: list[str] = []
    for path in named:
        if not path or not os.path.isabs(path) or not os.path.exists(path):
            continue
        for form in (path, os.path.realpath(path), *_targets(path)):
            if not _holds(form, home):
                found.append(form)
    return list(dict.fromkeys(found))


def certifi_bundle() -> str | None:
    """certifi's ``cacert.pem``, found without importing certifi; None when not installed."""
    with contextlib.suppress(ImportError, ValueError):
        spec = importlib.util.find_spec("certifi")
        for folder in (spec.submodule_search_locations or []) if spec is not None else []:
            bundle = os.path.join(folder, "cacert.pem")
            if os.path.isfile(bundle):
                return bundle
    return None


def _targets(path: str) -> list[str]:
    """The folders the links in a folder lead to (a capath's hashed names: one per authority)."""
    if not os.path.isdir(path):
        return []
    targets: set[str] = set()
    with contextlib.suppress(OSError), os.scandir(path) as entries:
        for number, entry in enumerate(entries):
            if number == MAX_LINKS:
                break
            if entry.is_symlink() and "/" in os.readlink(entry.path):  # else: in this folder
                targets.add(os.path.dirname(os.path.realpath(entry.path)))
    return sorted(targets)


def _holds(path: str, home: str) -> bool:
    """Whether path is / or holds $HOME: never shown for a certificate's sake."""
    return path == "/" or home == path or home.startswith(path.rstrip("/") + "/")
