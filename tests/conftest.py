"""Shared fixtures. Paths to the shared data sit beside the checkout (``../shared``).

Under CI (``CI`` set, as ``.ci/run`` does) the property tests draw the same examples on every run, so that a
failure there is one anybody can run again; elsewhere they draw new ones each run, to keep finding cases.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"shared data not found at {SHARED}")
    return SHARED
