"""The evaluator `casec export --format dumate` writes grades with casec's own checks.

For every golden and counter-example trace of cases/dumate, the run's workspace is made
from the files the sandbox holds at its end; the exported evaluator, given that folder and
the trace, must reach the verdicts `casec verify` reaches (every check, every critical
failure, the outcome), write a reward file that follows them, and exit 0 only on a pass.
"""

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ISOLATION, REPO

import casec

#: The traces run their workspace commands again, isolated.
pytestmark = pytest.mark.skipif(
    not ISOLATION, reason="bubblewrap cannot isolate workspace commands here"
)

DUMATE = REPO / "cases" / "dumate"
TRACES = sorted(DUMATE.rglob("*.trace.jsonl"))


@pytest.fixture(scope="module")
def suite() -> casec.Suite:
    return casec.load(DUMATE)


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory, casec_bin: str) -> Path:
    out = tmp_path_factory.mktemp("dumate") / "tasks"
    subprocess.run(
        [casec_bin, "export", str(DUMATE), "--format", "dumate", "-o", str(out)],
        check=True,
        capture_output=True,
    )
    return out


def workspace_of(record: dict, root: Path) -> None:
    """Writes the files the sandbox holds at the end of the run under `root` (binary
    content comes as `{"base64": …}`)."""
    for file in record["final_state"]["files"]:
        target = root / file["fields"]["path"].lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        content = file["fields"]["content"]
        if isinstance(content, str):
            target.write_text(content, encoding="utf-8")
        else:
            target.write_bytes(base64.b64decode(content["base64"]))


@pytest.mark.parametrize("trace", TRACES, ids=[t.name for t in TRACES])
def test_the_exported_evaluator_agrees_with_verify(
    trace: Path, suite: casec.Suite, tasks: Path, tmp_path: Path
) -> None:
    case_id = trace.name.split(".")[0]
    # A counter-example's labels are for a judge; the run's log is its events.
    events = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    events = [e for e in events if e["type"] != "violates"]
    log = tmp_path / "run.trace.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in events))
    expected = suite.replay(case_id, events)
    root = tmp_path / "run"
    root.mkdir()
    workspace_of(expected, root)
    reward_file = tmp_path / "reward.json"
    graded = subprocess.run(
        [
            sys.executable,
            str(tasks / case_id / "evaluator" / "evaluate.py"),
            str(root),
            "--log",
            str(log),
            "--reward",
            str(reward_file),
        ],
        capture_output=True,
        text=True,
    )
    # One line per check and critical failure, then the reward file's JSON.
    out = graded.stdout.splitlines()
    verdicts = [line.split(" ") for line in out[: out.index("{")] if "{" in out]
    checks = {id: status for id, status in verdicts if status != "triggered"}
    triggered = [id for id, status in verdicts if status == "triggered"]
    assert checks == expected["checks"], graded.stdout + graded.stderr
    assert triggered == expected["critical_failures_triggered"]
    passed = expected["outcome"] == suite.outcomes["passed"]
    assert graded.returncode == (0 if passed else 1), graded.stderr
    reward = json.loads(reward_file.read_text())
    assert reward == suite.reward(expected, "dumate")
    assert reward["complete_pass"] == (1 if passed else 0)
    if reward["complete_pass"] == 1:
        assert reward["partial_pass"] == 1.0


def test_a_run_left_for_a_reader_is_no_complete_pass(suite: casec.Suite) -> None:
    # task_5's golden run passes every machine check, but a reader still decides some.
    trace = next(t for t in TRACES if t.name == "task_5.trace.jsonl")
    events = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    record = suite.replay("task_5", events)
    assert record["outcome"] == suite.outcomes["undecided"]
    assert suite.reward(record, "dumate")["complete_pass"] == 0


def test_the_reward_needs_a_declared_export(suite: casec.Suite) -> None:
    record = suite.replay("task_2", [])
    with pytest.raises(ValueError, match="no folder export `nope`"):
        suite.reward(record, "nope")
