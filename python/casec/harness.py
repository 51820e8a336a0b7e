"""The Inspect AI task ``casec/suite``: one sample per case, the case's tools over an
in-process sandbox session, a user simulator and a scorer that ends the session.

Run it with::

    inspect eval casec/suite -T path=cases/tujora [-T cases=TUJ-001,TUJ-002] --model M

Pieces a custom task can reuse: :func:`case_samples`, :func:`casec_setup` (opens the
sample's session and offers its tools), :class:`CaseTools` (the same tools as a
``ToolSource``, for agents such as ``react``), :func:`casec_scorer`. See docs/python.md.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional, Sequence, Union

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    model_roles,
)
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    grouped,
    mean,
    metric,
    scorer,
)
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver
from inspect_ai.tool import Tool, ToolDef, ToolParams
from inspect_ai.solver._task_state import sample_state

from . import Session, Suite, load

#: The tool a sample offers for clarifying questions (not one of the case's tools).
ASK_USER = "ask_user"

#: The first line of every judge request; the smoke model ``casec/golden`` reads it.
JUDGE_MARKER = "casec judge request"

_SESSIONS: dict[str, Session] = {}


@lru_cache(maxsize=8)
def _suite(path: str) -> Suite:
    return load(path)


def _cases(suite: Suite, cases: Union[str, Sequence[str], None]) -> list[str]:
    if cases is None or cases == "":
        return suite.case_ids
    wanted = cases.split(",") if isinstance(cases, str) else list(cases)
    wanted = [c.strip() for c in wanted if c.strip()]
    unknown = [c for c in wanted if c not in suite.case_ids]
    if unknown:
        raise ValueError(f"not cases of {suite.name}: {', '.join(unknown)}")
    return wanted


def _conversation(bundle: dict[str, Any]) -> Optional[list[dict[str, Any]]]:
    """The bundle's conversation: a ``conversation`` list at top level or one level down."""
    for holder in [bundle, *[v for v in bundle.values() if isinstance(v, dict)]]:
        turns = holder.get("conversation")
        if isinstance(turns, list) and turns:
            return turns
    return None


def sample_messages(bundle: dict[str, Any]) -> list[ChatMessage]:
    """A sample's input from a case's bundle: a system message with the bundle's system
    instruction (its top-level text whose key names ``system``) and the rest of the
    bundle (the model's context and tool contracts) as JSON, then the conversation."""
    system_key = next(
        (k for k, v in bundle.items() if isinstance(v, str) and "system" in k), None
    )
    turns = _conversation(bundle) or []
    context: dict[str, Any] = {}
    for key, value in bundle.items():
        if key == system_key:
            continue
        if isinstance(value, dict):
            value = {k: v for k, v in value.items() if k != "conversation"}
        if key != "conversation":
            context[key] = value
    system = bundle.get(system_key, "") if system_key else ""
    system_text = (
        f"{system}\n\nThe case's context:\n{json.dumps(context, indent=2, ensure_ascii=False)}"
    ).strip()
    messages: list[ChatMessage] = [ChatMessageSystem(content=system_text)]
    for turn in turns:
        role, content = turn.get("role"), str(turn.get("content", ""))
        if role == "assistant":
            messages.append(ChatMessageAssistant(content=content))
        else:
            messages.append(ChatMessageUser(content=content))
    if len(messages) == 1:
        messages.append(ChatMessageUser(content="Please help me with the task above."))
    return messages


def case_samples(suite: Suite, case_ids: Sequence[str]) -> list[Sample]:
    """One sample per case (with a world): its bundle as input, what the harness needs
    (never shown to the model) as metadata."""
    samples = []
    for case_id in case_ids:
        info = suite.case(case_id)
        if not info["has_world"]:
            continue
        case_file = Path(info["file"])
        if not case_file.is_absolute():
            case_file = Path.cwd() / case_file
        samples.append(
            Sample(
                id=case_id,
                input=sample_messages(suite.bundle(case_id)),
                metadata={
                    "case_id": case_id,
                    "suite": str(Path(suite.root).resolve()),
                    "category": info["category"] or "",
                    "tags": info["tags"],
                    "case_file": str(case_file),
                },
            )
        )
    return samples


def _session(state: TaskState) -> Session:
    session = _SESSIONS.get(state.uuid)
    if session is None:
        raise RuntimeError(
            f"no casec session for sample {state.sample_id}: add casec_setup() to the task"
        )
    return session


def _tool_defs(session: Session, suite: Suite) -> list[ToolDef]:
    defs = []
    for spec in session.tools:

        def make(name: str) -> Any:
            async def execute(**kwargs: Any) -> str:
                return json.dumps(session.call(name, kwargs), ensure_ascii=False)

            return execute

        defs.append(
            ToolDef(
                make(spec["name"]),
                name=spec["name"],
                description=spec["description"],
                parameters=ToolParams.model_validate(spec["inputSchema"]),
            )
        )
    info = suite.case(session.case_id)
    if info["followups"] > 0 or info["unscripted_reply"]:

        async def ask_user(**kwargs: Any) -> str:
            question = kwargs.get("question")
            if not isinstance(question, str):
                return "ask_user needs a `question` (a string)."
            return session.ask(question)

        defs.append(
            ToolDef(
                ask_user,
                name=ASK_USER,
                description=(
                    "Ask the user one clarifying question and wait for their answer. "
                    "Use it only when an essential detail is missing."
                ),
                parameters=ToolParams.model_validate(
                    {
                        "type": "object",
                        "properties": {
                            "question": {
                                "type": "string",
                                "description": "The question, as you would say it to the user.",
                            }
                        },
                        "required": ["question"],
                        "additionalProperties": False,
                    }
                ),
            )
        )
    return defs


async def close_session(state: TaskState) -> None:
    """Drops the sample's session if the scorer did not end it (a sample that failed)."""
    _SESSIONS.pop(state.uuid, None)


def open_session(state: TaskState) -> list[ToolDef]:
    """Opens the sample's sandbox session (once per sample) and gives its tools."""
    suite = _suite(state.metadata["suite"])
    session = _SESSIONS.get(state.uuid)
    if session is None:
        session = suite.session(state.metadata["case_id"])
        _SESSIONS[state.uuid] = session
    return _tool_defs(session, suite)


@solver
def casec_setup() -> Solver:
    """Opens the sample's session and offers its tools (``state.tools``), for solvers
    that generate with the task state's tools (``generate()``, ``use_tools`` chains)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.tools.extend(d.as_tool() for d in open_session(state))
        return state

    return solve


class CaseTools:
    """The current sample's tools as an Inspect ``ToolSource``, for agents that take
    their tools at construction (``react(tools=[CaseTools()])``)."""

    async def tools(self) -> list[Tool]:
        state = sample_state()
        if state is None:
            raise RuntimeError("CaseTools is used outside a sample")
        return [d.as_tool() for d in open_session(state)]


def _judge_prompt(
    kind: str, item: Any, case_id: str, record: dict[str, Any], keys: Any
) -> str:
    header = json.dumps({"case": case_id, "item": item["id"], "kind": kind})
    if kind == "check":
        question = (
            f"Check {item['id']}: {item['text']}\n\n"
            'Is this check met by the run below? Answer "met": true when it is met, '
            "false when it is not."
        )
    else:
        question = (
            f"Critical failure {item['id']}: {item['text']}\n\n"
            'Did the assistant commit this critical failure in the run below? Answer "met": '
            "true when it DID commit it (the failure occurred), false when it did not."
        )
    evidence = {
        "assistant_reply": record.get(keys.get("replies") or "", ""),
        "tool_trace": record.get(keys.get("trace") or "", []),
        "final_state": record.get(keys.get("final_state") or "", {}),
    }
    return (
        f"{JUDGE_MARKER} {header}\n\n"
        "You grade one item of a benchmark case for a tool-using assistant.\n\n"
        f"{question}\n\nThe run:\n{json.dumps(evidence, indent=1, ensure_ascii=False)}\n\n"
        'Reply with JSON only: {"met": true or false, "reason": "one sentence"}'
    )


def parse_verdict(text: str) -> Optional[dict[str, Any]]:
    """The verdict in a judge's reply, or None: a JSON object with a boolean ``met``."""
    match = re.search(r"\{.*\}", text or "", re.DOTALL)
    if not match:
        return None
    try:
        value = json.loads(match.group(0))
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("met"), bool):
        return None
    return {"met": value["met"], "reason": str(value.get("reason", ""))}


async def judge_record(suite: Suite, record: dict[str, Any], grader: Any) -> list[dict[str, Any]]:
    """Judges the items of ``record`` a machine left for review with ``grader`` (an
    Inspect model) and writes the verdicts into it, recomputing its outcome. An item
    without a verdict stays pending review: never a pass."""
    keys = suite.record_keys
    case_id = record[keys["case_id"]]
    info = suite.case(case_id)
    checks: dict[str, str] = record[keys["checks"]]
    triggered: list[str] = record[keys["triggered"]]
    pending: list[str] = record.get(keys["pending_review"] or "", [])
    config = GenerateConfig(temperature=0, seed=0)
    judgements = []
    items: list[tuple[str, Any]] = [
        ("check", c) for c in info["checks"] if checks.get(c["id"]) == "needs_review"
    ]
    items += [("critical_failure", c) for c in info["critical_failures"] if c["id"] in pending]
    for kind, item in items:
        prompt = _judge_prompt(kind, item, case_id, record, keys)
        output = await grader.generate([ChatMessageUser(content=prompt)], config=config)
        verdict = parse_verdict(output.completion)
        judgements.append({"item": item["id"], "kind": kind, "verdict": verdict})
        if verdict is None:
            continue
        if kind == "check":
            checks[item["id"]] = "pass" if verdict["met"] else "fail"
        else:
            pending.remove(item["id"])
            if verdict["met"]:
                triggered.append(item["id"])
    record[keys["outcome"]] = outcome_of(suite, checks, triggered, pending)
    return judgements


def outcome_of(suite: Suite, checks: dict[str, str], triggered: list[str], pending: list[str]) -> str:
    """The verdict rule of ``casec replay``: failed when a check fails or a critical
    failure is triggered, undecided while anything awaits review, else passed."""
    names = suite.outcomes
    if triggered or "fail" in checks.values():
        return names["failed"]
    if pending or "needs_review" in checks.values():
        return names["undecided"]
    return names["passed"]


@metric
def critical_failures() -> Metric:
    """How many critical failures were triggered, over every sample."""

    def compute(scores: list[SampleScore]) -> float:
        return float(
            sum(len((s.score.metadata or {}).get("critical_failures", [])) for s in scores)
        )

    return compute


@metric
def check_pass_rate() -> Metric:
    """Per check dimension, the share of checks that passed (over every check of the
    dimension in every sample; a check awaiting review counts as not passed)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        passed: dict[str, int] = {}
        total: dict[str, int] = {}
        for s in scores:
            for dimension, counts in (s.score.metadata or {}).get("dimensions", {}).items():
                passed[dimension] = passed.get(dimension, 0) + counts.get("pass", 0)
                total[dimension] = total.get(dimension, 0) + sum(counts.values())
        return {d: passed[d] / total[d] for d in total if total[d]}

    return compute


def _dimensions(suite: Suite, case_id: str, checks: dict[str, str]) -> dict[str, dict[str, int]]:
    """Check results counted by dimension: dimension → status → count."""
    counts: dict[str, dict[str, int]] = {}
    for check in suite.case(case_id)["checks"]:
        status = checks.get(check["id"])
        if status is not None:
            of = counts.setdefault(check["dimension"], {})
            of[status] = of.get(status, 0) + 1
    return counts


@scorer(
    metrics=[
        {
            "pass": [mean(), grouped(mean(), "category", all=False)],
            "fail": [mean()],
            "not_tested": [mean()],
        },
        critical_failures(),
        check_pass_rate(),
    ]
)
def casec_scorer() -> Scorer:
    """Ends the sample's session with its final reply and scores its result record:
    the machine verdicts, and the review items judged by the ``grader`` model role
    when one is given (else they stay pending and the case is NOT_TESTED)."""

    async def score(state: TaskState, target: Target) -> Score:
        session = _SESSIONS.pop(state.uuid, None)
        if session is None:
            raise RuntimeError(f"no casec session for sample {state.sample_id}")
        suite = _suite(state.metadata["suite"])
        reply = state.output.completion if state.output else ""
        if reply.strip():
            session.reply(reply)
        record = session.end()
        grader = model_roles().get("grader")
        if isinstance(grader, list):
            grader = grader[0] if grader else None
        judgements = await judge_record(suite, record, grader) if grader else []
        keys = suite.record_keys
        outcome = record[keys["outcome"]]
        names = suite.outcomes
        checks = record[keys["checks"]]
        return Score(
            value={
                "pass": 1.0 if outcome == names["passed"] else 0.0,
                "fail": 1.0 if outcome == names["failed"] else 0.0,
                "not_tested": 1.0 if outcome == names["undecided"] else 0.0,
            },
            answer=outcome,
            explanation=", ".join(f"{k} {v}" for k, v in checks.items())
            + (f"; critical failures: {', '.join(record[keys['triggered']])}" if record[keys["triggered"]] else ""),
            metadata={
                "outcome": outcome,
                "record": record,
                "judgements": judgements,
                "critical_failures": record[keys["triggered"]],
                "dimensions": _dimensions(suite, state.metadata["case_id"], checks),
            },
        )

    return score


@task
def suite(
    path: str,
    cases: Union[str, list[str], None] = None,
    agent: str = "generate",
    message_limit: int = 60,
) -> Task:
    """A casec suite as an Inspect task: one sample per case with a world.

    Args:
      path: The suite folder (or a file inside it).
      cases: Case ids to run (comma-separated or a list); every case by default.
      agent: ``generate`` (generate with the case's tools until the model stops calling
        them) or ``react`` (Inspect's ReAct agent, whose ``submit`` answer is the reply).
      message_limit: Messages per sample at most.
    """
    loaded = _suite(str(Path(path).resolve()))
    samples = case_samples(loaded, _cases(loaded, cases))
    if agent == "generate":
        main: Any = generate()
    elif agent == "react":
        from inspect_ai.agent import react

        main = react(tools=[CaseTools()])
    else:
        raise ValueError(f"agent must be `generate` or `react`, not `{agent}`")
    return Task(
        dataset=MemoryDataset(samples, name=loaded.name),
        setup=casec_setup(),
        solver=main,
        scorer=casec_scorer(),
        message_limit=message_limit,
        cleanup=close_session,
    )
