"""The Inspect AI task casec/suite with the package's smoke models, offline."""

import json
import subprocess

import pytest

from conftest import TUJORA

inspect_ai = pytest.importorskip("inspect_ai")

import casec.harness  # noqa: E402


def run(tmp_path, model, cases=None, agent="generate", grader=None):
    return {s.id: s.scores["casec_scorer"] for s in run_log(tmp_path, model, cases, agent, grader).samples}


def run_log(tmp_path, model, cases=None, agent="generate", grader=None):
    task_args = {"path": str(TUJORA), "agent": agent}
    if cases:
        task_args["cases"] = ",".join(cases)
    logs = inspect_ai.eval(
        "casec/suite",
        task_args=task_args,
        model=model,
        model_roles={"grader": grader} if grader else None,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert len(logs) == 1
    log = logs[0]
    assert log.status == "success", log.error
    return log


def golden_calls(tujora, case_id):
    case_file = tujora.case(case_id)["file"]
    path = case_file[: -len(".case")] + ".trace.jsonl"
    events = [json.loads(l) for l in open(path) if l.strip()]
    return [(e["tool"], e.get("arguments", {})) for e in events if e["type"] == "call"]


@pytest.mark.parametrize("agent", ["generate", "react"])
def test_golden_passes_every_case(tmp_path, tujora, agent):
    scores = run(tmp_path, "casec/golden", agent=agent, grader="casec/golden")
    assert sorted(scores) == sorted(tujora.case_ids)
    failing = {k: (s.answer, s.explanation) for k, s in scores.items() if s.answer != "PASS"}
    assert failing == {}
    # The session saw the golden trace's calls, in order, with their arguments.
    for case_id in ["TUJ-011", "TUJ-034", "TUJ-077"]:
        record = scores[case_id].metadata["record"]
        calls = [(e["tool"], e["arguments"]) for e in record["tool_trace"] if e["type"] == "call"]
        assert calls == golden_calls(tujora, case_id)
        assert record["assistant_response"]


def test_golden_asks_the_scripted_followup(tmp_path, tujora):
    asking = [c for c in tujora.case_ids if tujora.case(c)["followups"] > 0][:3]
    assert asking
    scores = run(tmp_path, "casec/golden", cases=asking, grader="casec/golden")
    for case_id in asking:
        trace = scores[case_id].metadata["record"]["tool_trace"]
        asked = [e for e in trace if e["type"] == "asked"]
        assert asked and asked[0]["followup"] == 1, case_id
        assert scores[case_id].answer == "PASS"


def test_without_a_grader_review_items_leave_not_tested(tmp_path, tujora):
    cases = ["TUJ-001", "TUJ-011", "TUJ-034"]
    scores = run(tmp_path, "casec/golden", cases=cases)
    assert {k: s.answer for k, s in scores.items()} == {c: "NOT_TESTED" for c in cases}
    assert all(s.metadata["judgements"] == [] for s in scores.values())


def test_a_grader_without_verdicts_leaves_not_tested(tmp_path):
    cases = ["TUJ-011", "TUJ-034"]
    scores = run(tmp_path, "casec/golden", cases=cases, grader="casec/idle")
    for case_id in cases:
        score = scores[case_id]
        assert score.answer == "NOT_TESTED"
        judged = score.metadata["judgements"]
        assert judged and all(j["met"] is None and j["reason"] for j in judged)
        assert score.metadata["record"]["judgements"]["items"] == [
            {**j, "source": None} for j in judged
        ]
        assert "pass" in score.metadata["record"]["checks"].values()


def test_idle_fails_where_verify_says_doing_nothing_fails(tmp_path, tujora, casec_bin):
    verify = subprocess.run(
        [casec_bin, "verify", str(TUJORA), "--format", "json"], capture_output=True, text=True
    ).stdout
    lines = [json.loads(l) for l in verify.splitlines() if l.startswith('{"case_id"')]
    assert len(lines) == 100
    does_not_discriminate = {
        l["case_id"] for l in lines if any("do-nothing" in w for w in l["warnings"])
    }
    assert len(does_not_discriminate) == 13
    scores = run(tmp_path, "casec/idle", grader="casec/golden")
    for case_id, score in scores.items():
        if case_id in does_not_discriminate:
            assert score.answer != "FAIL", case_id
        else:
            assert score.answer == "FAIL", (case_id, score.explanation)


def test_idle_under_react_submits_nothing_and_fails(tmp_path):
    scores = run(tmp_path, "casec/idle", cases=["TUJ-011"], agent="react")
    assert scores["TUJ-011"].answer == "FAIL"


def test_unknown_case_is_refused(tmp_path):
    with pytest.raises(Exception, match="NOPE"):
        casec.harness.suite(path=str(TUJORA), cases="TUJ-001,NOPE")


def test_sample_input_is_the_bundle(tujora):
    [sample] = casec.harness.case_samples(tujora, ["TUJ-011"])
    system, user = sample.input
    assert system.role == "system" and user.role == "user"
    bundle = tujora.bundle("TUJ-011")
    assert system.text.startswith(bundle["assistant_system_instruction"])
    assert '"permissions"' in system.text
    assert user.text == bundle["model_input"]["conversation"][0]["content"]
    assert sample.metadata["category"] == "medication"


def test_parse_verdict_fails_closed():
    parse = casec.harness.parse_verdict
    assert parse('{"met": true, "reason": "ok"}') == {"met": True, "reason": "ok"}
    assert parse('```json\n{"met": false, "reason": "no"}\n```') == {"met": False, "reason": "no"}
    assert parse('Sure: {"met": false, "reason": "no"}') is None
    assert parse('{"met": false}') is None
    assert parse('{"met": true, "met": false, "reason": "?"}') is None
    assert parse("") is None
    assert parse("yes") is None
    assert parse('{"met": "yes"}') is None
    assert parse('{"met": tru') is None


def test_inspect_eval_command_line(tmp_path):
    """`inspect eval casec/suite …` finds the task and the models by the entry point."""
    import shutil
    import sys
    from pathlib import Path

    inspect = Path(sys.executable).with_name("inspect")
    command = str(inspect) if inspect.exists() else shutil.which("inspect")
    assert command, "the inspect command is installed with inspect-ai"
    subprocess.run(
        [command, "eval", "casec/suite", "-T", f"path={TUJORA}", "-T", "cases=TUJ-011,TUJ-034",
         "--model", "casec/golden", "--model-role", "grader=casec/golden",
         "--log-dir", str(tmp_path), "--display", "none"],
        check=True, capture_output=True, text=True, timeout=300,
    )
    [log_file] = list(tmp_path.glob("*.eval"))
    log = inspect_ai.log.read_eval_log(str(log_file))
    assert log.status == "success"
    assert {s.id: s.scores["casec_scorer"].answer for s in log.samples} == {"TUJ-011": "PASS", "TUJ-034": "PASS"}


def test_metrics_per_category_dimension_and_critical_failures(tmp_path):
    cases = ["TUJ-011", "TUJ-034", "TUJ-001"]
    log = run_log(tmp_path, "casec/idle", cases=cases, grader="casec/golden")
    metrics = {
        name: m.value for score in log.results.scores for name, m in score.metrics.items()
    }
    categories = {"grouped_medication", "grouped_appointments"} & set(metrics)
    assert categories, metrics
    assert metrics["mean"] is not None
    for dimension in ("recognition", "execution_and_evidence", "final_state", "communication"):
        assert 0.0 <= metrics[dimension] <= 1.0
    assert metrics["critical_failures"] >= 0
    # The idle run fails the execution checks the machine decides.
    assert metrics["execution_and_evidence"] < 1.0
