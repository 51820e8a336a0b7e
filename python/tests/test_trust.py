"""The trust model in Python (docs/security.md), against the hostile adapter of casec's
tests (tests/adapters/hostile/hostile.py): a suite whose tools run programs of its own runs
them only when loaded with ``trust=True`` (the Inspect task: ``-T trust=true``), with a
cleared environment; a session waits for a program with the GIL released, so a slow
program never stalls the interpreter's other threads."""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path
from typing import Any, Callable

import pytest
from conftest import REPO

import casec

#: The hostile suite's folder, shared with tests/trust.rs: the program, the suite's
#: template, HO-1 and its golden trace (which calls `leak` once).
HOSTILE = REPO / "tests" / "adapters" / "hostile"
TOOLS = ["leak", "slow"]
ADAPTER = 'adapter "python3" "hostile.py" { writes notes }'

SUITE = (
    (HOSTILE / "suite.case.template")
    .read_text(encoding="utf-8")
    .replace("@TOOLS@", " ".join(TOOLS))
    .replace(
        "@DECLARED@",
        "".join(
            f'  tool {t} {{\n    behavior "A program of the suite."\n    {ADAPTER}\n  }}\n'
            for t in TOOLS
        ),
    )
)

CALL = {"type": "call", "tool": "leak", "arguments": {}}


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A suite folder whose tools run the hostile program, with a golden trace that
    calls `leak`; the judge's key is in the environment."""
    suite = tmp_path / "suite"
    shutil.copytree(HOSTILE, suite, ignore=shutil.ignore_patterns("*.template", "__pycache__"))
    (suite / "suite.case").write_text(SUITE, encoding="utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-reach-the-program")
    return suite


def test_without_trust_nothing_that_runs_the_programs_runs(hostile: Path) -> None:
    suite = casec.load(hostile)
    assert (suite.trust, suite.trust_outside) == (False, False)
    runs: list[Callable[[], Any]] = [
        lambda: suite.session("HO-1"),
        lambda: suite.replay("HO-1", [CALL]),
        suite.labelled_runs,
        suite.check_trust,
    ]
    for run in runs:
        with pytest.raises(casec.TrustError, match=r"tool `leak`.*python3 hostile\.py.*trust=True"):
            run()
    assert issubclass(casec.TrustError, PermissionError)
    assert not (hostile / "ran.marker").exists()
    # What never runs a program still works on an untrusted suite.
    assert suite.bundle("HO-1")


def test_trust_outside_widens_trust_and_is_not_consent_alone(hostile: Path) -> None:
    with pytest.raises(ValueError, match="trust=True"):
        casec.load(hostile, trust_outside=True)
    both = casec.load(hostile, trust=True, trust_outside=True)
    assert (both.trust, both.trust_outside) == (True, True)


def test_a_suite_without_programs_needs_no_trust(tujora: casec.Suite) -> None:
    tujora.check_trust()
    tujora.session("TUJ-011").end()


def test_with_trust_the_program_runs_without_the_key(hostile: Path) -> None:
    suite = casec.load(hostile, trust=True)
    session = suite.session("HO-1")
    assert session.call("leak")["sees_key"] is False
    record = session.end()
    given = json.loads((hostile / "env.json").read_text(encoding="utf-8"))
    assert "OPENAI_API_KEY" not in given
    assert "PATH" in given
    assert suite.replay("HO-1", session.trace) == record
    assert [r["run"] for r in suite.labelled_runs()] == ["golden"]


def test_a_call_waiting_for_a_program_does_not_stall_other_threads(hostile: Path) -> None:
    suite = casec.load(hostile, trust=True)
    session = suite.session("HO-1")
    session.call("slow")  # The program is started: the next call only waits for it.
    ticks: list[float] = []
    done = threading.Event()

    def tick() -> None:
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.01)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        start = time.monotonic()
        assert session.call("slow")["status"] == "ok"
        end = time.monotonic()
    finally:
        done.set()
        ticker.join()
    during = [t for t in ticks if start < t < end]
    # The program answers after 2 s; a held GIL would leave the other thread no tick.
    assert end - start > 1.5
    assert len(during) >= 20, f"{len(during)} ticks in {end - start:.1f} s"


def test_the_inspect_task_needs_trust_for_a_suite_with_programs(
    hostile: Path, tmp_path: Path
) -> None:
    inspect_ai = pytest.importorskip("inspect_ai")

    def run(**trust: Any) -> Any:
        return inspect_ai.eval(
            "casec/suite",
            task_args={"path": str(hostile), **trust},
            model="casec/golden",
            log_dir=str(tmp_path / "logs"),
            display="none",
        )

    with pytest.raises(casec.TrustError, match="-T trust=true"):
        run()
    assert not (hostile / "ran.marker").exists()
    (log,) = run(trust="true")
    assert log.status == "success", log.error
    (sample,) = log.samples or []
    record = sample.scores["casec_scorer"].metadata["record"]
    # The golden model called `leak` through the program: the machine check passed.
    assert record[casec.load(hostile).record_keys["checks"]]["A1"] == "pass"
    assert (hostile / "ran.marker").exists()
