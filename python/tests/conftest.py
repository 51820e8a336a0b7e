"""Shared fixtures: the repository's suites, and the `casec` binary when one is built
(CI sets CASEC; locally `target/debug/casec` or $CARGO_TARGET_DIR's is used), which is
also the job program of workspace commands (CASEC_JOB_PROGRAM)."""

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


def _isolation() -> bool:
    """Whether bubblewrap can isolate workspace commands here (docs/security.md)."""
    import subprocess

    try:
        done = subprocess.run(["bwrap", "--unshare-all", "--ro-bind", "/", "/", "true"])
    except OSError:
        return False
    return done.returncode == 0


#: Workspace commands (cases/dumate's golden scripts) can run here. CI installs
#: bubblewrap and sets CASEC_REQUIRE_ISOLATION, so that these tests cannot skip there.
ISOLATION = _isolation()
if not ISOLATION and os.environ.get("CASEC_REQUIRE_ISOLATION"):
    raise RuntimeError("CASEC_REQUIRE_ISOLATION is set but bubblewrap cannot isolate here")


def needs_isolation(suite: Path):
    """A suite parameter, skipped where its workspace commands cannot run."""
    runs_commands = suite.name == "dumate"
    reason = "bubblewrap cannot isolate workspace commands here"
    return pytest.param(
        suite, marks=pytest.mark.skipif(runs_commands and not ISOLATION, reason=reason)
    )


#: Every suite under cases/, each skipped where its commands cannot run.
RUNNABLE_SUITES = [needs_isolation(s) for s in SUITES]

# Workspace commands run casec's job program (`casec workspace-job`): the binary the
# tests use, unless the caller names one.
if _binary() is not None:
    os.environ.setdefault("CASEC_JOB_PROGRAM", str(Path(_binary()).resolve()))


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
