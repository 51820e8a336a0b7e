"""Shared fixtures: the repository's suites, and the `casec` binary when one is built
(CI sets CASEC; locally `target/debug/casec` or $CARGO_TARGET_DIR's is used)."""

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TUJORA = REPO / "cases" / "tujora"
#: Every suite under cases/.
SUITES = sorted(p.parent for p in (REPO / "cases").glob("*/suite.case"))


def _binary():
    candidates = [os.environ.get("CASEC")]
    target = os.environ.get("CARGO_TARGET_DIR")
    for profile in ("debug", "release"):
        if target:
            candidates.append(str(Path(target) / profile / "casec"))
        candidates.append(str(REPO / "target" / profile / "casec"))
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("casec")


@pytest.fixture(scope="session")
def tujora():
    import casec

    return casec.load(TUJORA)


@pytest.fixture(scope="session")
def casec_bin():
    found = _binary()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("CI must set CASEC to a built casec binary")
        pytest.skip("no casec binary built (set CASEC)")
    return found
