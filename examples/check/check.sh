#!/bin/sh
# The check a CI job runs: the smoke check, then (were there any) linters and type checkers.
set -e
"${PYTHON:-python3}" smoke.py
