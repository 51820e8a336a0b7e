"""The Inspect AI task casec/suite over every suite under cases/, with the package's
offline smoke models, under each way of running an agent; and how a run reads."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, RUNNABLE_SUITES, SUITES, TUJORA

inspect_ai = pytest.importorskip("inspect_ai")

from inspect_ai.event import ModelEvent  # noqa: E402
from inspect_ai.log import EvalLog, read_eval_log  # noqa: E402
from inspect_ai.model import execute_tools, get_model  # noqa: E402
from inspect_ai.solver import Generate, Solver, TaskState, solver  # noqa: E402

import casec  # noqa: E402
import casec.harness  # noqa: E402

SCORER = "casec_scorer"


@solver
def custom_loop() -> Solver:
    """A hand-written agent loop: generates with the task state's tools and runs the
    calls until the model stops calling them."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        for _ in range(40):
            output = await model.generate(state.messages, state.tools)
            state.output = output
            state.messages.append(output.message)
            if not output.message.tool_calls:
                break
            result = await execute_tools(state.messages, state.tools)
            state.messages.extend(result.messages)
        return state

    return solve


def run_log(
    tmp_path: Path,
    model: str,
    suite: Path = TUJORA,
    cases: list[str] | None = None,
    grader: str | None = None,
    solver: Any = None,
    agent: str = "generate",
) -> EvalLog:
    task_args: dict[str, Any] = {"path": str(suite), "agent": agent}
    if cases:
        task_args["cases"] = ",".join(cases)
    logs = inspect_ai.eval(
        "casec/suite",
        task_args=task_args,
        model=model,
        # The golden smoke model also plays the simulated people (docs/people.md).
        model_roles={"grader": grader, "user": grader} if grader else None,
        solver=solver,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert len(logs) == 1
    return logs[0]


def succeeded(log: EvalLog) -> EvalLog:
    assert log.status == "success", log.error
    return log


def answers(log: EvalLog) -> dict[str, str]:
    return {str(s.id): s.scores[SCORER].answer for s in log.samples or []}


def inspect_command() -> str:
    inspect = Path(sys.executable).with_name("inspect")
    command = str(inspect) if inspect.exists() else shutil.which("inspect")
    assert command, "the inspect command is installed with inspect-ai"
    return command


def inspect_cli(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """The `inspect` command line, as a user types it."""
    return subprocess.run(
        [inspect_command(), *args], check=check, capture_output=True, text=True, timeout=300
    )


def solvers() -> dict[str, Any]:
    return {
        "default": None,
        "casec/react": casec.harness.react(),
        # A custom solver holds a conversation with a case's simulated person when it
        # is wrapped in `converse` (docs/people.md).
        "custom-loop": casec.harness.converse(custom_loop()),
    }


@pytest.mark.parametrize("solver_name", list(solvers()))
@pytest.mark.parametrize("suite", RUNNABLE_SUITES, ids=lambda p: p.name)
def test_golden_passes_every_case_of_every_suite(
    tmp_path: Path, suite: Path, solver_name: str
) -> None:
    loaded = casec.load(suite)
    log = succeeded(
        run_log(
            tmp_path, "casec/golden", suite, grader="casec/golden", solver=solvers()[solver_name]
        )
    )
    with_world = [c for c in loaded.case_ids if loaded.case(c)["has_world"]]
    passed = loaded.outcomes["passed"]
    assert answers(log) == {c: passed for c in with_world}
    # The session saw the golden trace's calls, in order, with their arguments (a
    # request a command's program made is the command's, not a call of the model).
    keys = loaded.record_keys
    for sample in (log.samples or [])[:3]:
        record = sample.scores[SCORER].metadata["record"]
        calls = [
            (e["tool"], e["arguments"])
            for e in record[keys["trace"]]
            if e["type"] == "call" and "by_command" not in e
        ]
        assert calls == golden_calls(loaded, str(sample.id))


def golden_calls(suite: casec.Suite, case_id: str) -> list[tuple[str, Any]]:
    case_file = suite.case(case_id)["file"]
    path = case_file[: -len(".case")] + ".trace.jsonl"
    events = [json.loads(line) for line in open(path) if line.strip()]
    return [(e["tool"], e.get("arguments", {})) for e in events if e["type"] == "call"]


def test_the_cli_runs_casec_react(tmp_path: Path) -> None:
    """`inspect eval casec/suite --solver casec/react`: the agent is found by its
    registered name and reaches the case's tools."""
    inspect_cli(
        "eval",
        "casec/suite",
        "-T",
        f"path={TUJORA}",
        "-T",
        "cases=TUJ-011",
        "--solver",
        "casec/react",
        "--model",
        "casec/golden",
        "--model-role",
        "grader=casec/golden",
        "--log-dir",
        str(tmp_path),
        "--display",
        "none",
    )
    [log_file] = list(tmp_path.glob("*.eval"))
    log = succeeded(read_eval_log(str(log_file)))
    assert answers(log) == {"TUJ-011": "PASS"}


def test_a_solver_that_never_offers_the_case_tools_is_refused(tmp_path: Path) -> None:
    """Inspect's own `react` takes its tools when it is built: `--solver react` never
    offers the case's tools. The run must not pass silently: the samples error, naming
    the agents that work."""
    inspect_cli(
        "eval",
        "casec/suite",
        "-T",
        f"path={TUJORA}",
        "-T",
        "cases=TUJ-011",
        "--solver",
        "react",
        "--model",
        "casec/golden",
        "--log-dir",
        str(tmp_path),
        "--display",
        "none",
        check=False,
    )
    [log_file] = list(tmp_path.glob("*.eval"))
    log = read_eval_log(str(log_file))
    assert log.status == "error"
    assert log.error is not None and "never offered the case" in log.error.message
    # The package's runner turns such a log into a failure.
    runner = subprocess.run(
        [
            sys.executable,
            "-m",
            "casec",
            "eval",
            str(TUJORA),
            "-T",
            "cases=TUJ-011",
            "--solver",
            "react",
            "--model",
            "casec/golden",
            "--log-dir",
            str(tmp_path / "runner"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert runner.returncode == 1, runner.stdout + runner.stderr
    assert "never offered the case" in runner.stderr


def test_the_runner_reports_each_suite(tmp_path: Path) -> None:
    runner = subprocess.run(
        [
            sys.executable,
            "-m",
            "casec",
            "eval",
            str(TUJORA),
            "-T",
            "cases=TUJ-011,TUJ-034",
            "--model",
            "casec/golden",
            "--model-role",
            "grader=casec/golden",
            "--log-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert runner.returncode == 0, runner.stdout + runner.stderr
    assert "pass_rate 1.000" in runner.stdout


def test_golden_asks_the_scripted_followup(tmp_path: Path, tujora: casec.Suite) -> None:
    asking = [c for c in tujora.case_ids if tujora.case(c)["followups"] > 0][:3]
    assert asking
    log = succeeded(run_log(tmp_path, "casec/golden", cases=asking, grader="casec/golden"))
    for sample in log.samples or []:
        trace = sample.scores[SCORER].metadata["record"]["tool_trace"]
        asked = [e for e in trace if e["type"] == "asked"]
        assert asked and asked[0]["followup"] == 1, sample.id
        assert sample.scores[SCORER].answer == "PASS"


def test_without_a_grader_review_items_leave_not_tested(tmp_path: Path) -> None:
    cases = ["TUJ-001", "TUJ-011", "TUJ-034"]
    log = succeeded(run_log(tmp_path, "casec/golden", cases=cases))
    assert answers(log) == {c: "NOT_TESTED" for c in cases}
    assert all(s.scores[SCORER].metadata["judgements"] == [] for s in log.samples or [])


def test_a_grader_without_verdicts_leaves_not_tested(tmp_path: Path) -> None:
    cases = ["TUJ-011", "TUJ-034"]
    log = succeeded(run_log(tmp_path, "casec/golden", cases=cases, grader="casec/idle"))
    for sample in log.samples or []:
        score = sample.scores[SCORER]
        assert score.answer == "NOT_TESTED"
        judged = score.metadata["judgements"]
        assert judged and all(j["met"] is None and j["reason"] for j in judged)
        assert score.metadata["record"]["judgements"]["items"] == [
            {**j, "source": None} for j in judged
        ]
        assert "pass" in score.metadata["record"]["checks"].values()


def verify_lines(casec_bin: str, suite: Path) -> list[dict[str, Any]]:
    verify = subprocess.run(
        [casec_bin, "verify", str(suite), "--format", "json"], capture_output=True, text=True
    ).stdout
    return [json.loads(line) for line in verify.splitlines() if line.startswith('{"case_id"')]


@pytest.mark.parametrize("suite", RUNNABLE_SUITES, ids=lambda p: p.name)
def test_idle_fails_where_verify_says_doing_nothing_fails(
    tmp_path: Path, suite: Path, casec_bin: str
) -> None:
    loaded = casec.load(suite)
    lines = verify_lines(casec_bin, suite)
    assert {line["case_id"] for line in lines} == {
        c for c in loaded.case_ids if loaded.case(c)["has_world"]
    }
    # verify warns where the do-nothing trace does not fail the case.
    does_not_discriminate = {
        line["case_id"] for line in lines if any("do-nothing" in w for w in line["warnings"])
    }
    log = succeeded(run_log(tmp_path, "casec/idle", suite, grader="casec/golden"))
    failed = loaded.outcomes["failed"]
    for case_id, answer in answers(log).items():
        if case_id in does_not_discriminate:
            assert answer != failed, case_id
        else:
            assert answer == failed, case_id


def test_idle_under_react_submits_nothing_and_fails(tmp_path: Path) -> None:
    log = succeeded(run_log(tmp_path, "casec/idle", cases=["TUJ-011"], agent="react"))
    assert answers(log) == {"TUJ-011": "FAIL"}


def test_unknown_case_is_refused() -> None:
    with pytest.raises(ValueError, match="NOPE"):
        casec.harness.suite(path=str(TUJORA), cases="TUJ-001,NOPE")


@pytest.mark.parametrize("suite", RUNNABLE_SUITES, ids=lambda p: p.name)
def test_the_model_sees_the_bundle_once_and_nothing_else(tmp_path: Path, suite: Path) -> None:
    """The sample's input is the opening message; the system message holds the bundle's
    system prompt and context; no case id; the opening message is said once."""
    loaded = casec.load(suite)
    case_id = next(c for c in loaded.case_ids if loaded.case(c)["has_world"])
    log = succeeded(run_log(tmp_path, "casec/golden", suite, cases=[case_id]))
    [sample] = log.samples or []
    prompt = loaded.prompt(case_id)
    opening = prompt["conversation"][0]["content"]
    assert sample.input == opening
    system, first = sample.messages[0], sample.messages[1]
    assert system.role == "system" and prompt["system"]
    assert system.text.startswith(prompt["system"])
    assert first.role == "user" and first.text == opening
    bundle_text = json.dumps(loaded.bundle(case_id), ensure_ascii=False)
    model_text = "\n".join(m.text for m in sample.messages if m.role in ("system", "user"))
    assert case_id not in model_text, "the case id is for routing, not for the model"
    assert model_text.count(opening) == 1
    # Everything the model read is the bundle's: each context value is in the bundle.
    for key, value in prompt["context"].items():
        assert json.dumps(value, ensure_ascii=False)[1:-1][:40] in bundle_text, key


def test_the_explanation_names_what_failed_with_its_text(
    tmp_path: Path, tujora: casec.Suite
) -> None:
    log = succeeded(run_log(tmp_path, "casec/idle", cases=["TUJ-011"], grader="casec/golden"))
    [sample] = log.samples or []
    score = sample.scores[SCORER]
    info = tujora.case("TUJ-011")
    checks = score.metadata["record"]["checks"]
    failed = [c for c in info["checks"] if checks.get(c["id"]) not in (None, "pass")]
    assert failed
    for check in failed:
        assert f"{check['id']} {checks[check['id']]}: {check['text']}" in (score.explanation or "")
    # Judged items carry the judge's reason, readable in the viewer as text.
    reasons = score.metadata["judge_reasons"]
    assert reasons and all(isinstance(r, str) and ": " in r for r in reasons.values())
    for item, reason in reasons.items():
        if checks.get(item) not in (None, "pass"):
            assert reason.split(": ", 1)[1] in (score.explanation or "")


def test_the_headline_is_the_pass_rate(tmp_path: Path) -> None:
    cases = ["TUJ-011", "TUJ-034", "TUJ-001"]
    log = succeeded(run_log(tmp_path, "casec/idle", cases=cases, grader="casec/golden"))
    assert log.results is not None
    [score] = log.results.scores
    names = list(score.metrics)
    assert names[0] == "pass_rate"
    values = {name: m.value for name, m in score.metrics.items()}
    outcomes = answers(log)
    assert values["pass_rate"] == sum(a == "PASS" for a in outcomes.values()) / len(cases)
    assert {"medication", "appointments"} <= set(values)
    for dimension in ("recognition", "execution_and_evidence", "final_state", "communication"):
        assert 0.0 <= values[dimension] <= 1.0
    triggered = sum(1 for s in log.samples or [] if s.scores[SCORER].metadata["critical_failures"])
    assert values["critical_failure_rate"] == triggered / len(cases)
    # The idle run fails the execution checks the machine decides.
    assert values["execution_and_evidence"] < 1.0


def test_the_store_keeps_the_trace_and_the_run(tmp_path: Path, tujora: casec.Suite) -> None:
    """The sample's store (written into the log) keeps the session's trace, whose replay
    is the record the scorer graded, and the run that made it."""
    log = succeeded(run_log(tmp_path, "casec/golden", cases=["TUJ-011"]))
    [sample] = log.samples or []
    stored = sample.store
    assert stored[casec.harness.RUN_KEY] == {"model": "casec/golden", "run_id": log.eval.run_id}
    record = sample.scores[SCORER].metadata["record"]
    keys = tujora.record_keys
    assert keys["model"] and keys["run_id"]
    assert record[keys["model"]] == "casec/golden"
    assert record[keys["run_id"]] == log.eval.run_id
    trace = stored[casec.harness.TRACE_KEY]
    assert tujora.replay("TUJ-011", trace, model="casec/golden", run_id=log.eval.run_id) == record


def test_a_stored_log_is_regraded_with_another_grader(tmp_path: Path) -> None:
    """`inspect score` re-grades a log from the trace its samples stored, without the
    model: the golden run passes with the golden grader, and with a grader that gives
    no verdict its review items stay pending."""
    cases = ["TUJ-011", "TUJ-034"]
    log = succeeded(run_log(tmp_path, "casec/golden", cases=cases, grader="casec/golden"))
    assert answers(log) == {c: "PASS" for c in cases}
    rescored = tmp_path / "rescored.eval"
    inspect_cli(
        "score",
        log.location,
        "--scorer",
        "casec/casec_scorer",
        "--model-role",
        "grader=casec/idle",
        "--action",
        "overwrite",
        "--output-file",
        str(rescored),
    )
    again = read_eval_log(str(rescored))
    assert answers(again) == {c: "NOT_TESTED" for c in cases}
    for sample in again.samples or []:
        assert "the judge gave no verdict" in (sample.scores[SCORER].explanation or "")
    # And back with the golden grader, through the Python API.
    regraded = inspect_ai.score(
        again,
        casec.harness.casec_scorer(),
        model_roles={"grader": "casec/golden"},
        action="overwrite",
        display="none",
    )
    assert answers(regraded) == {c: "PASS" for c in cases}


def test_parse_verdict_fails_closed() -> None:
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


def test_inspect_eval_command_line(tmp_path: Path) -> None:
    """`inspect eval casec/suite …` finds the task and the models by the entry point."""
    inspect_cli(
        "eval",
        "casec/suite",
        "-T",
        f"path={TUJORA}",
        "-T",
        "cases=TUJ-011,TUJ-034",
        "--model",
        "casec/golden",
        "--model-role",
        "grader=casec/golden",
        "--log-dir",
        str(tmp_path),
        "--display",
        "none",
    )
    [log_file] = list(tmp_path.glob("*.eval"))
    log = succeeded(read_eval_log(str(log_file)))
    assert answers(log) == {"TUJ-011": "PASS", "TUJ-034": "PASS"}


def test_suites_under_cases_are_the_ones_tested() -> None:
    assert sorted(p.name for p in SUITES) == sorted(
        p.parent.name for p in (REPO / "cases").glob("*/suite.case")
    )


#: A suite a new user wrote from the docs alone, some tool arguments left without `doc`.
LIBRARY = Path(__file__).parent / "data" / "library"


def test_a_suite_from_the_docs_with_undocumented_arguments_runs(
    tmp_path: Path, casec_bin: str, caplog: pytest.LogCaptureFixture
) -> None:
    check = subprocess.run(
        [casec_bin, "check", str(LIBRARY), "--format", "json"], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stderr
    found = [json.loads(line) for line in check.stderr.splitlines() if line.startswith("{")]
    undocumented = sorted(d["message"] for d in found if d.get("code") == "undocumented_argument")
    assert undocumented == sorted(
        f"argument `{argument}` of tool `{tool}` has no `doc`"
        for tool, argument in [
            ("member_loans", "member"),
            ("lend_book", "member"),
            ("lend_book", "request_id"),
            ("renew_loan", "new_due"),
        ]
    )
    with caplog.at_level("WARNING"):
        log = succeeded(run_log(tmp_path, "casec/golden", LIBRARY, grader="casec/golden"))
    # The task says what `casec check` would: an `inspect eval` user sees the warnings.
    assert sum("undocumented_argument" in r.getMessage() for r in caplog.records) == 4
    assert set(answers(log).values()) == {casec.load(LIBRARY).outcomes["passed"]}
    offered = 0
    for sample in log.samples or []:
        for event in sample.events:
            if isinstance(event, ModelEvent) and event.role is None:
                for tool in event.tools:
                    for name, param in tool.parameters.properties.items():
                        offered += 1
                        assert param.description, (sample.id, tool.name, name)
    assert offered
