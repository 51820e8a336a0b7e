"""The Inspect AI task ``casec/suite``: one sample per case, the case's tools over an
in-process sandbox session, a user simulator and a scorer that grades the session.

Run it with::

    inspect eval casec/suite -T path=cases/tujora [-T cases=TUJ-001,TUJ-002] --model M

A suite whose tools run programs of its own (adapters) runs only with ``-T trust=true``
(and ``-T trust_outside=true`` for programs and paths outside the suite folder): they
run as you (docs/security.md). A tool call waits for its program in a worker thread, so
the other samples go on meanwhile.

Pieces a custom task can reuse: :func:`case_samples`, :func:`casec_setup` (opens the
sample's session, adds the case's system message and offers its tools; the task runs it
whatever the solver), :class:`CaseTools` (the same tools as a ``ToolSource``, for agents
that take their tools when they are built), the agent ``casec/react`` and
:func:`casec_scorer`. See docs/python.md.

**Where a sample's session lives.** The session is a native object (a live sandbox),
not JSON, so it cannot live in the sample's ``Store``, which Inspect writes into the log.
It lives in this module, keyed by the sample's uuid, from the setup to the scorer (or
the task's cleanup for a sample that failed). What the log must keep lives in the store:
the session's trace, updated after every event, so that ``inspect score`` can re-grade
a stored log by replaying it (:func:`casec_scorer`), and which run and model made it.
"""

from __future__ import annotations

import json
import logging
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional, TypeVar, Union

import anyio
from inspect_ai import Task, task
from inspect_ai.agent import Agent, AgentState, agent
from inspect_ai.agent import react as inspect_react
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.event import ModelEvent
from inspect_ai.hooks import Hooks, SampleStart, hooks
from inspect_ai.log import HeadlineMetric, transcript
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ResponseSchema,
    model_roles,
)
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver
from inspect_ai.tool import Tool, ToolDef, ToolParams, ToolSource
from inspect_ai.util import JSONSchema, store
from inspect_ai.util import sandbox as inspect_sandbox

from . import Session, Suite, load
from ._casec import agreement as native_agreement
from ._casec import parse_person_turn as native_parse_person_turn
from ._casec import parse_verdict as native_parse_verdict
from .workspace import SANDBOXES, SandboxExecutor, sample_files

#: The tool a sample offers for clarifying questions (not one of the case's tools).
ASK_USER = "ask_user"

#: The first words of every judge request the library builds (its header line); the
#: smoke model ``casec/golden`` reads it.
JUDGE_MARKER = "casec judge request"

#: Keys of a sample's ``Store`` (written into the log): the key of its live session,
#: its case file (for the smoke models), its trace so far, and its run (``model``,
#: ``run_id``).
SESSION_KEY = "casec:session"
CASE_FILE_KEY = "casec:case_file"
TRACE_KEY = "casec:trace"
RUN_KEY = "casec:run"
#: How many times the sample's simulated person answers at most.
PERSON_TURNS_KEY = "casec:person_turns"

#: How many times a simulated person answers at most by default (``-T person_turns=N``).
PERSON_TURNS = 8


@dataclass
class _Live:
    """A sample's suite and live session, and the lock that runs its tool calls one at
    a time, in the order the model made them, each in a worker thread."""

    suite: Suite
    session: Session
    calls: anyio.Lock = field(default_factory=anyio.Lock)
    #: The conversation loop recorded the assistant's last reply (the scorer must not).
    replied: bool = False


_SESSIONS: dict[str, _Live] = {}

logger = logging.getLogger(__name__)

#: The eval run of each sample being run, by the sample's uuid, as Inspect's
#: ``on_sample_start`` hook reports it (a solver sees no run id).
_RUN_IDS: dict[str, str] = {}


@hooks(name="casec", description="Tells casec samples the id of the run they belong to.")
class RunIds(Hooks):
    """Notes each sample's run id, for its result record."""

    async def on_sample_start(self, data: SampleStart) -> None:
        _RUN_IDS[data.sample_id] = data.run_id


@lru_cache(maxsize=8)
def _suite(path: str, trust: bool = False, trust_outside: bool = False) -> Suite:
    return load(path, trust=trust, trust_outside=trust_outside)


def _sample_suite(state: TaskState) -> Suite:
    """The suite of a sample, loaded with the trust its task was given."""
    metadata = state.metadata
    return _suite(
        metadata["suite"], metadata.get("trust", False), metadata.get("trust_outside", False)
    )


def _flag(value: Union[bool, str], name: str) -> bool:
    """A task argument that is a yes or no (``-T trust=true``; ``python -m casec eval``
    passes it as text)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no", ""):
        return False
    raise ValueError(f"{name} must be true or false, not `{value}`")


def _cases(suite: Suite, cases: Union[str, Sequence[str], None]) -> list[str]:
    if cases is None or cases == "":
        return suite.case_ids
    wanted = cases.split(",") if isinstance(cases, str) else list(cases)
    wanted = [c.strip() for c in wanted if c.strip()]
    unknown = [c for c in wanted if c not in suite.case_ids]
    if unknown:
        raise ValueError(f"not cases of {suite.name}: {', '.join(unknown)}")
    return wanted


def system_message(suite: Suite, case_id: str) -> Optional[ChatMessageSystem]:
    """The case's system message: its bundle's system prompt, then the rest of its
    bundle (the model's context, permissions, tool contracts) as JSON. Nothing the
    bundle does not hold: not the case id, not the conversation (the sample's input)."""
    prompt = suite.prompt(case_id)
    parts = [prompt["system"] or ""]
    if prompt["context"]:
        context = json.dumps(prompt["context"], indent=2, ensure_ascii=False)
        parts.append(f"The case's context:\n{context}")
    text = "\n\n".join(p for p in parts if p).strip()
    return ChatMessageSystem(content=text) if text else None


def opening_messages(suite: Suite, case_id: str) -> list[ChatMessage]:
    """The sample's input: the case's conversation as user and assistant messages."""
    messages: list[ChatMessage] = []
    for turn in suite.prompt(case_id)["conversation"]:
        if turn["role"] == "assistant":
            messages.append(ChatMessageAssistant(content=turn["content"]))
        else:
            messages.append(ChatMessageUser(content=turn["content"]))
    if not messages:
        messages.append(ChatMessageUser(content="Please help me with the task above."))
    return messages


def case_samples(
    suite: Suite, case_ids: Sequence[str], sandbox: str = "local", person_turns: int = PERSON_TURNS
) -> list[Sample]:
    """One sample per case (with a world): the case's opening conversation as input
    (the system message is added by :func:`casec_setup`), what the harness needs
    (never shown to the model) as metadata. A case whose tools run workspace commands
    gets an Inspect sandbox (``sandbox``: ``local``, or ``docker`` with the suite's
    generated compose file) seeded with its world's files (:mod:`casec.workspace`)."""
    if sandbox not in SANDBOXES:
        raise ValueError(f"sandbox must be one of {', '.join(SANDBOXES)}, not `{sandbox}`")
    samples = []
    for case_id in case_ids:
        info = suite.case(case_id)
        if not info["has_world"]:
            continue
        case_file = Path(info["file"])
        if not case_file.is_absolute():
            case_file = Path.cwd() / case_file
        messages = opening_messages(suite, case_id)
        only_user = len(messages) == 1 and isinstance(messages[0], ChatMessageUser)
        workspace: dict[str, Any] = {}
        if info["runs_commands"]:
            workspace = {
                "sandbox": _sandbox_spec(suite, sandbox),
                "files": sample_files(suite.workspace_files(case_id), sandbox),
            }
        samples.append(
            Sample(
                id=case_id,
                input=messages[0].text if only_user else messages,
                **workspace,
                metadata={
                    "case_id": case_id,
                    "suite": str(Path(suite.root).resolve()),
                    "trust": suite.trust,
                    "trust_outside": suite.trust_outside,
                    "category": info["category"] or "",
                    "tags": info["tags"],
                    "case_file": str(case_file),
                    "sandbox": sandbox if info["runs_commands"] else None,
                    "person_turns": int(person_turns),
                },
            )
        )
    return samples


@lru_cache(maxsize=8)
def _compose_file(suite_root: str, text: str) -> str:
    """The suite's compose file, written once per process to a folder of its own."""
    folder = Path(tempfile.mkdtemp(prefix="casec-compose-"))
    path = folder / "compose.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _sandbox_spec(suite: Suite, sandbox: str) -> Union[str, tuple[str, str]]:
    """The Inspect sandbox of a case that runs commands."""
    if sandbox == "local":
        return "local"
    compose = suite.compose_yaml()
    if compose is None:
        raise ValueError(f"{suite.name}: no tool of the suite runs commands")
    return ("docker", _compose_file(str(suite.root), compose))


def _keep_trace(session: Session) -> None:
    """Writes the session's trace into the sample's store (and so into the log)."""
    store().set(TRACE_KEY, session.trace)


def _current_session() -> _Live:
    """The suite and live session of the sample being run."""
    key = store().get(SESSION_KEY)
    live = _SESSIONS.get(key) if isinstance(key, str) else None
    if live is None:
        raise RuntimeError("no casec session for this sample: the task needs casec_setup()")
    return live


def _tool_defs(live: _Live) -> list[ToolDef]:
    suite, session = live.suite, live.session
    defs = []
    for spec in session.tools:

        def make(name: str) -> Any:
            async def execute(**kwargs: Any) -> str:
                # A suite's program may take up to its timeout to answer: the call waits
                # in a worker thread (the session releases the GIL), so the event loop
                # and the other samples go on meanwhile.
                async with live.calls:
                    result = await anyio.to_thread.run_sync(session.call, name, kwargs)
                _keep_trace(session)
                return json.dumps(result, ensure_ascii=False)

            return execute

        defs.append(
            ToolDef(
                make(spec["name"]),
                name=spec["name"],
                description=spec["description"],
                parameters=ToolParams.model_validate(spec["inputSchema"]),
                # One call at a time, in the model's order: a workspace command calls
                # back into the event loop while it holds the session.
                parallel=False,
            )
        )
    info = suite.case(session.case_id)
    if info["followups"] > 0 or info["unscripted_reply"]:

        async def ask_user(**kwargs: Any) -> str:
            question = kwargs.get("question")
            if not isinstance(question, str):
                return "ask_user needs a `question` (a string)."
            reply = await answer_question(session, question)
            _keep_trace(session)
            return reply

        defs.append(
            ToolDef(
                ask_user,
                name=ASK_USER,
                parallel=False,
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


def _role_model(*roles: str) -> Optional[Model]:
    """The model bound to the first of ``roles`` that has one (the first of a list)."""
    bound = model_roles()
    for role in roles:
        model = bound.get(role)
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
    judge = _role_model("user", "grader")
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
    _RUN_IDS.pop(state.uuid, None)


def open_session(state: TaskState) -> list[ToolDef]:
    """Opens the sample's sandbox session (once per sample) and gives its tools."""
    suite = _sample_suite(state)
    live = _SESSIONS.get(state.uuid)
    if live is None:
        run = {"model": str(state.model), "run_id": _RUN_IDS.get(state.uuid, "")}
        case_id = state.metadata["case_id"]
        live = _Live(suite, suite.session(case_id, **run))
        kind = state.metadata.get("sandbox")
        if kind:
            seeded = suite.workspace_files(case_id)
            live.session.set_executor(SandboxExecutor(inspect_sandbox(), kind, seeded))
        _SESSIONS[state.uuid] = live
        session = live.session
        sample_store = store()
        sample_store.set(SESSION_KEY, state.uuid)
        sample_store.set(CASE_FILE_KEY, state.metadata["case_file"])
        sample_store.set(RUN_KEY, run)
        sample_store.set(PERSON_TURNS_KEY, state.metadata.get("person_turns", PERSON_TURNS))
        _keep_trace(session)
    return _tool_defs(live)


@solver
def casec_setup() -> Solver:
    """Opens the sample's session, puts the case's system message first and offers the
    case's tools (``state.tools``) to solvers that generate with the task state's tools
    (``generate()``, ``use_tools`` chains, a custom loop). The task runs it as its
    ``setup``, so it runs whatever ``--solver`` replaces the task's solver with."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.tools.extend(d.as_tool() for d in open_session(state))
        system = system_message(_sample_suite(state), state.metadata["case_id"])
        if system is not None:
            state.messages.insert(0, system)
        return state

    return solve


async def person_turn(session: Session, person: Model) -> dict[str, Any]:
    """The simulated person's next turn, played by ``person`` (the ``user`` model role)
    from the request the library builds (the person's fields and the conversation,
    nothing else), read as the library reads it. A turn that cannot be read is asked
    for once more; a second failure is an error of the sample, never a made-up turn."""
    body = session.person_request(model=_grader_name(person))
    why = ""
    for _ in range(2):
        output = await person.generate(_messages(body), config=_config(body))
        try:
            turn: dict[str, Any] = native_parse_person_turn(output.completion or "")
            return turn
        except ValueError as error:
            why = str(error)
    raise RuntimeError(
        f"{session.case_id}: the simulated person gave no turn casec can read: {why}"
    )


ConversationState = TypeVar("ConversationState", TaskState, AgentState)


async def _converse(
    state: ConversationState,
    again: Callable[[ConversationState], Awaitable[ConversationState]],
) -> ConversationState:
    """The conversation loop after a first run of the assistant (``state`` holds its
    reply): the reply goes to the simulated person, whose message comes back as the
    next user message and the assistant runs ``again``, until the person ends the
    conversation or has answered the sample's turn limit (the ending is then
    ``turn_limit``). Nothing happens without a person or a ``user`` model role."""
    live = _current_session()
    person = _role_model("user")
    if person is None or not live.suite.case(live.session.case_id)["has_person"]:
        return state
    session = live.session
    turns = store().get(PERSON_TURNS_KEY, PERSON_TURNS)
    for _ in range(int(turns)):
        _record_reply(session, state)
        live.replied = True
        turn = await person_turn(session, person)
        if turn["message"]:
            session.user(turn["message"], turn["thought"])
        if turn["end"] is not None:
            end = turn["end"]
            session.end_conversation(end["reason"], end["satisfaction"], end["verdict"])
            _keep_trace(session)
            return state
        _keep_trace(session)
        state.messages.append(ChatMessageUser(content=turn["message"] or ""))
        live.replied = False
        state = await again(state)
    _record_reply(session, state)
    live.replied = True
    session.end_conversation("turn_limit")
    _keep_trace(session)
    return state


def _record_reply(session: Session, state: Union[TaskState, AgentState]) -> None:
    """Records the assistant's reply that ended its turn, when it said something."""
    reply = state.output.completion if state.output else ""
    if reply.strip():
        session.reply(reply)


@solver
def converse(main: Solver) -> Solver:
    """Runs ``main`` as a conversation with the case's simulated person (docs/people.md):
    each time ``main`` ends with a reply, the reply goes to the person (the ``user``
    model role), whose answer comes back as the next user message, until the person
    ends the conversation or has answered ``-T person_turns`` times. A case without a
    person, or a run without a ``user`` role, is one ``main`` run, as before."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        async def again(state: TaskState) -> TaskState:
            return await main(state, generate)

        return await _converse(await again(state), again)

    return solve


class CaseTools(ToolSource):
    """The current sample's tools as an Inspect ``ToolSource``, for agents that take
    their tools when they are built (``react(tools=[CaseTools()])``)."""

    async def tools(self) -> list[Tool]:
        return [d.as_tool() for d in _tool_defs(_current_session())]


@agent(name="react")
def react(**kwargs: Any) -> Agent:
    """Inspect's ReAct agent with the case's tools: ``--solver casec/react`` (any of
    ``react``'s own arguments may be given with ``-S``). Inspect's ``react`` takes its
    tools when it is built, so ``--solver react`` cannot reach a case's tools: the
    scorer refuses such a run rather than grade a model that never saw them."""
    tools = [CaseTools(), *kwargs.pop("tools", [])]
    inner = inspect_react(tools=tools, **kwargs)

    async def again(state: AgentState) -> AgentState:
        # Inspect's react puts its system prompt first on every run: keep one.
        state = await inner(state)
        seen: list[str] = []
        kept = []
        for message in state.messages:
            if isinstance(message, ChatMessageSystem):
                if message.text in seen:
                    continue
                seen.append(message.text)
            kept.append(message)
        state.messages = kept
        return state

    async def execute(state: AgentState) -> AgentState:
        # A case with a simulated person is a conversation: each submitted answer goes
        # to the person, and the agent runs again on their answer.
        return await _converse(await again(state), again)

    return execute


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


async def _ask(grader: Model, body: dict[str, Any]) -> dict[str, Any]:
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


def _grader_name(grader: Model) -> str:
    return str(getattr(grader, "name", None) or grader)


async def judge_record(
    suite: Suite, record: dict[str, Any], grader: Model
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Judges the items of ``record`` a machine left for review with ``grader`` (an
    Inspect model), one request per item as the library builds it (the prompts of
    ``casec judge``), and gives the judged record (the verdicts written in, its outcome
    recomputed, a ``judgements`` key) and the judgements. An item without a verdict
    stays pending review: never a pass."""
    model = _grader_name(grader)
    judgements: list[dict[str, Any]] = []
    for request in suite.judge_requests(record, model=model):
        if request["missing"]:
            verdict: dict[str, Any] = {"met": None, "reason": request["missing"]}
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
    return suite.judged(record, judgements, model=model), judgements  # type: ignore[arg-type]


async def calibrate(suite: Suite, grader: Model) -> dict[str, Any]:
    """``casec calibrate`` with an Inspect model as the judge: judges the suite's golden
    traces (positives) and labelled counter-examples (negatives) and reports agreement
    with the labels (accuracy, balanced accuracy, Cohen's kappa; overall, per group and
    per item id), every disagreement, and the cases with review items but no labelled negative."""
    model = _grader_name(grader)
    samples = []
    for run in suite.labelled_runs():
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


def _metadata(s: SampleScore) -> dict[str, Any]:
    return s.score.metadata or {}


def _value(s: SampleScore, key: str) -> float:
    value = s.score.value
    return float(value.get(key, 0.0)) if isinstance(value, dict) else 0.0


def _share(scores: list[SampleScore], key: str) -> float:
    return sum(_value(s, key) for s in scores) / len(scores) if scores else 0.0


@metric
def pass_rate() -> Metric:
    """The share of cases that passed."""

    def compute(scores: list[SampleScore]) -> float:
        return _share(scores, "pass")

    return compute


@metric
def category_pass_rate() -> Metric:
    """Per category, the share of its cases that passed."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        by: dict[str, list[SampleScore]] = {}
        for s in scores:
            by.setdefault(str(_metadata(s).get("category") or "uncategorised"), []).append(s)
        return {category: _share(of, "pass") for category, of in sorted(by.items())}

    return compute


@metric
def check_pass_rate() -> Metric:
    """Per check dimension, the share of checks that passed (over every check of the
    dimension in every sample; a check awaiting review counts as not passed)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        passed: dict[str, int] = {}
        total: dict[str, int] = {}
        for s in scores:
            for dimension, counts in _metadata(s).get("dimensions", {}).items():
                passed[dimension] = passed.get(dimension, 0) + counts.get("pass", 0)
                total[dimension] = total.get(dimension, 0) + sum(counts.values())
        return {d: passed[d] / total[d] for d in total if total[d]}

    return compute


@metric
def critical_failure_rate() -> Metric:
    """The share of cases in which a critical failure was triggered."""

    def compute(scores: list[SampleScore]) -> float:
        hit = sum(1 for s in scores if _metadata(s).get("critical_failures"))
        return hit / len(scores) if scores else 0.0

    return compute


@metric
def fail_rate() -> Metric:
    """The share of cases that failed."""

    def compute(scores: list[SampleScore]) -> float:
        return _share(scores, "fail")

    return compute


@metric
def not_tested_rate() -> Metric:
    """The share of cases left undecided (an item still awaits review)."""

    def compute(scores: list[SampleScore]) -> float:
        return _share(scores, "not_tested")

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


def explanation(
    suite: Suite, case_id: str, record: dict[str, Any], judgements: list[dict[str, Any]]
) -> str:
    """What a reviewer reads of a sample's grade (Markdown): the outcome, then every
    check that did not pass and every critical failure triggered or awaiting review,
    each with its text and, when a judge decided it, the judge's reason."""
    keys = suite.record_keys
    info = suite.case(case_id)
    reasons = {j["item"]: j["reason"] for j in judgements if j.get("reason")}
    lines = [f"**{record[keys['outcome']]}**"]
    checks: dict[str, str] = record[keys["checks"]]
    for check in info["checks"]:
        status = checks.get(check["id"])
        if status is None or status == "pass":
            continue
        line = f"- {check['id']} {status}: {check['text']}"
        if check["id"] in reasons:
            line += f" (judge: {reasons[check['id']]})"
        lines.append(line)
    triggered = set(record[keys["triggered"]])
    pending = set(record.get(keys["pending_review"] or "", []) or [])
    for critical in info["critical_failures"]:
        if critical["id"] in triggered or critical["id"] in pending:
            state = "triggered" if critical["id"] in triggered else "awaits review"
            line = f"- critical failure {critical['id']} {state}: {critical['text']}"
            if critical["id"] in reasons:
                line += f" (judge: {reasons[critical['id']]})"
            lines.append(line)
    passed = sum(1 for s in checks.values() if s == "pass")
    lines.append(f"\n{passed} of {len(checks)} checks passed.")
    return "\n".join(lines)


def _reason_line(judgement: dict[str, Any]) -> str:
    """A judgement as one line a reviewer reads: its verdict, then the judge's reason."""
    met = judgement["met"]
    verdict = "met" if met else "not met" if met is False else "no verdict"
    return f"{verdict}: {judgement['reason']}"


def _offered_case_tools(session_tools: set[str]) -> bool:
    """Whether any call of the model under test (not a model role) offered a case tool."""
    for event in transcript().events:
        if isinstance(event, ModelEvent) and event.role is None:
            if any(t.name in session_tools for t in event.tools):
                return True
    return False


@scorer(
    metrics=[
        pass_rate(),
        category_pass_rate(),
        check_pass_rate(),
        critical_failure_rate(),
        fail_rate(),
        not_tested_rate(),
    ]
)
def casec_scorer(
    trust: Union[bool, str] = False, trust_outside: Union[bool, str] = False
) -> Scorer:
    """Grades the sample's session: records the final reply, ends the session and
    scores its result record (the machine verdicts, and the review items judged by the
    ``grader`` model role when one is given, else they stay pending and the case is
    undecided). A stored log is re-graded (``inspect score``) by replaying the trace
    the sample's store kept: the same record, graded with today's grader. Replaying a
    suite whose tools run programs of its own needs the user's consent again
    (``-S trust=true``, and ``-S trust_outside=true``): it is never taken from the log."""
    replay_trust = (_flag(trust, "trust"), _flag(trust_outside, "trust_outside"))

    async def score(state: TaskState, target: Target) -> Score:
        case_id = state.metadata["case_id"]
        live = _SESSIONS.pop(state.uuid, None)
        _RUN_IDS.pop(state.uuid, None)
        suite = live.suite if live is not None else _suite(state.metadata["suite"], *replay_trust)
        if live is not None:
            session = live.session
            if session.tools and not _offered_case_tools({t["name"] for t in session.tools}):
                raise RuntimeError(
                    f"{case_id}: the solver never offered the case's tools to the model. "
                    "An agent that takes its tools when it is built (Inspect's `react`) "
                    "cannot reach them: use `--solver casec/react` or `-T agent=react`, "
                    "or give your agent `casec.harness.CaseTools()`."
                )
            reply = state.output.completion if state.output else ""
            if reply.strip() and not live.replied:
                session.reply(reply)
            _keep_trace(session)
            record = session.end()
        else:
            trace = store().get(TRACE_KEY)
            if not isinstance(trace, list):
                raise RuntimeError(
                    f"{case_id}: no casec session and no stored trace: "
                    "the sample was not run by casec_setup()"
                )
            run = store().get(RUN_KEY) or {}
            record = suite.replay(case_id, trace, model=run.get("model"), run_id=run.get("run_id"))
        grader = _role_model("grader")
        judgements: list[dict[str, Any]] = []
        if grader is not None:
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
            explanation=explanation(suite, case_id, record, judgements),
            metadata={
                "outcome": outcome,
                "category": state.metadata.get("category", ""),
                "record": record,
                "judge_reasons": {j["item"]: _reason_line(j) for j in judgements},
                "judgements": judgements,
                "critical_failures": record[keys["triggered"]],
                "dimensions": _dimensions(suite, case_id, checks),
            },
        )

    return score


@task
def suite(
    path: str,
    cases: Union[str, list[str], None] = None,
    agent: str = "generate",
    message_limit: int = 60,
    trust: Union[bool, str] = False,
    trust_outside: Union[bool, str] = False,
    sandbox: str = "local",
    person_turns: int = PERSON_TURNS,
) -> Task:
    """A casec suite as an Inspect task: one sample per case with a world.

    Args:
      path: The suite folder (or a file inside it).
      cases: Case ids to run (comma-separated or a list); every case by default.
      agent: ``generate`` (generate with the case's tools until the model stops calling
        them) or ``react`` (Inspect's ReAct agent, whose ``submit`` answer is the reply).
      message_limit: Messages per sample at most.
      trust: Let the suite's programs (its tools' adapters) run: they run as you, so
        give it only for a suite you trust. A suite with programs is refused without it
        (``TrustError``); a suite without them needs none.
      trust_outside: With ``trust``, also programs and paths outside the suite folder.
      person_turns: How many times a case's simulated person answers at most (played
        by the ``user`` model role; docs/people.md).
      sandbox: Where the workspace commands of cases that run them go: ``local``
        (each command isolated by bubblewrap, the sample's folder as its root) or
        ``docker`` (a container from the suite's generated compose file; Kubernetes:
        see docs/python.md).
    """
    loaded = _suite(
        str(Path(path).resolve()), _flag(trust, "trust"), _flag(trust_outside, "trust_outside")
    )
    # A suite with errors does not load; its warnings would go unseen under Inspect.
    for diagnostic in loaded.diagnostics:
        where = f"{diagnostic.get('file')}:{diagnostic.get('line')}"
        logger.warning(f"casec: {where}: {diagnostic.get('code')}: {diagnostic.get('message')}")
    selected = _cases(loaded, cases)
    # Refused before any sample runs, as `casec verify` refuses.
    loaded.check_trust(selected)
    samples = case_samples(loaded, selected, sandbox, int(person_turns))
    # Each holds the conversation with a case's simulated person (docs/people.md).
    if agent == "generate":
        main: Any = converse(generate())
    elif agent == "react":
        main = react()
    else:
        raise ValueError(f"agent must be `generate` or `react`, not `{agent}`")
    return Task(
        dataset=MemoryDataset(samples, name=loaded.name),
        setup=casec_setup(),
        solver=main,
        scorer=casec_scorer(),
        message_limit=message_limit,
        cleanup=close_session,
        headline_metric=HeadlineMetric(metric="pass_rate"),
    )
