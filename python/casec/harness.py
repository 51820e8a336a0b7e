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
from inspect_ai.model import ResponseSchema
from inspect_ai.tool import Tool, ToolDef, ToolParams
from inspect_ai.util import JSONSchema
from inspect_ai.solver._task_state import sample_state

from . import Session, Suite, load
from ._casec import agreement as native_agreement
from ._casec import parse_verdict as native_parse_verdict

#: The tool a sample offers for clarifying questions (not one of the case's tools).
ASK_USER = "ask_user"

#: The first words of every judge request the library builds (its header line); the
#: smoke model ``casec/golden`` reads it.
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
            return await answer_question(session, question)

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


def _user_judge() -> Any:
    """The model that decides whether a question is a scripted follow-up: the ``user``
    model role, else the ``grader`` role, else None."""
    roles = model_roles()
    for role in ("user", "grader"):
        model = roles.get(role)
        if isinstance(model, list):
            model = model[0] if model else None
        if model is not None:
            return model
    return None


async def answer_question(session: Session, question: str) -> str:
    """The user simulator: the scripted reply when ``question`` is one of the case's
    scripted follow-ups not asked yet (judged semantically by the ``user`` or ``grader``
    model role, with the library's request, as the suite's instructions say), else the
    unscripted reply. Without either role, the next scripted follow-up not asked yet
    answers any question (the questions are not judged)."""
    judge = _user_judge()
    if judge is None:
        return session.ask(question)
    model = _grader_name(judge)
    for request in session.followup_requests(question, model=model):
        verdict = await _ask(judge, request["body"])
        if verdict["met"]:
            return session.ask(question, followup=request["followup"])
    return session.question(question)


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


def _messages(body: dict[str, Any]) -> list[ChatMessage]:
    """The chat messages of a request the library built."""
    out: list[ChatMessage] = []
    for message in body["messages"]:
        if message["role"] == "system":
            out.append(ChatMessageSystem(content=message["content"]))
        else:
            out.append(ChatMessageUser(content=message["content"]))
    return out


def _config(body: dict[str, Any]) -> GenerateConfig:
    """The request's settings: temperature 0, its seed, its verdict schema."""
    schema = body["response_format"]["json_schema"]
    return GenerateConfig(
        temperature=body["temperature"],
        seed=body["seed"],
        response_schema=ResponseSchema(
            name=schema["name"],
            json_schema=JSONSchema.model_validate(schema["schema"]),
            strict=schema["strict"],
        ),
    )


async def _ask(grader: Any, body: dict[str, Any]) -> dict[str, Any]:
    """One verdict from ``grader`` for a request the library built: ``met`` (None when
    the grader gave no clear verdict, with why in ``reason``) and ``reason``."""
    try:
        output = await grader.generate(_messages(body), config=_config(body))
    except Exception as error:  # noqa: BLE001 - any failure leaves the item for review
        return {"met": None, "reason": f"the grader failed: {error}"}
    try:
        return native_parse_verdict(output.completion or "")
    except ValueError as why:
        return {"met": None, "reason": str(why)}


def parse_verdict(text: str) -> Optional[dict[str, Any]]:
    """The verdict in a judge's reply, or None: the library's reading (one JSON object
    ``{"met": bool, "reason": str}``, alone or in one fenced block), which fails closed."""
    try:
        return native_parse_verdict(text or "")
    except ValueError:
        return None


def _grader_name(grader: Any) -> str:
    return str(getattr(grader, "name", None) or grader)


async def judge_record(
    suite: Suite, record: dict[str, Any], grader: Any
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Judges the items of ``record`` a machine left for review with ``grader`` (an
    Inspect model), one request per item as the library builds it (the prompts of
    ``casec judge``), and gives the judged record (the verdicts written in, its outcome
    recomputed, a ``judgements`` key) and the judgements. An item without a verdict
    stays pending review: never a pass."""
    model = _grader_name(grader)
    judgements = []
    for request in suite.judge_requests(record, model=model):
        if request["missing"]:
            verdict = {"met": None, "reason": request["missing"]}
        else:
            verdict = await _ask(grader, request["body"])
        judgements.append(
            {
                "item": request["item"],
                "kind": request["kind"],
                "met": verdict["met"],
                "reason": verdict["reason"],
                "evidence_digest": request["evidence_digest"],
                "source": "judge",
            }
        )
    return suite.judged(record, judgements, model=model), judgements


async def calibrate(suite: Suite, grader: Any) -> dict[str, Any]:
    """``casec calibrate`` with an Inspect model as the judge: judges the suite's golden
    traces (positives) and labelled counter-examples (negatives) and reports agreement
    with the labels (accuracy, balanced accuracy, Cohen's kappa; overall, per group and
    per item id), every disagreement, and the cases with review items but no labelled negative."""
    model = _grader_name(grader)
    samples = []
    runs = suite.labelled_runs()
    for run in runs:
        requests = {r["item"]: r for r in suite.judge_requests(run["record"], model=model)}
        for label in run["labels"]:
            request = requests[label["item"]]
            verdict = (
                {"met": None, "reason": request["missing"]}
                if request["missing"]
                else await _ask(grader, request["body"])
            )
            samples.append(
                {
                    "case": run["case_id"],
                    "run": run["run"],
                    "item": label["item"],
                    "kind": label["kind"],
                    "group": label["group"],
                    "expected_met": label["expected_met"],
                    "met": verdict["met"],
                    "reason": verdict["reason"],
                }
            )
    return native_agreement(samples)


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
        judgements: list[dict[str, Any]] = []
        if grader:
            record, judgements = await judge_record(suite, record, grader)
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
