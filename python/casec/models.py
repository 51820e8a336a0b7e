"""Smoke-test models registered with Inspect: ``casec/golden`` and ``casec/idle``.

They need no API key and no network, so a run of ``casec/suite`` can be tested offline:

* ``casec/golden`` plays each case's golden trace (``<ID>.trace.jsonl`` beside the case
  file): its tool calls one by one as assistant tool calls (an ``asked`` or
  ``question`` event as a call of ``ask_user``), then its reply (through ``submit``
  when the agent offers one, as ``react`` does); in a conversation with a simulated
  person, turn by turn. As the ``user`` role it plays the person: each request for
  the person's turn gets the golden trace's next ``user`` message (with its thought)
  or its ``end``. As the ``grader`` role it
  answers each judge request from the golden trace's labels: a golden run meets every
  check and commits no critical failure, and a question is a scripted follow-up when
  the golden trace asks it as one.
* ``casec/idle`` replies once with nothing (under ``react``: submits an empty answer).

Every output carries token usage, so Inspect never counts tokens itself (which would
need a tokenizer download).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Optional

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_ai.util import store

from .harness import ASK_USER, CASE_FILE_KEY, JUDGE_MARKER, TRACE_KEY

SUBMIT = "submit"


def golden_trace(case_file: str) -> list[dict[str, Any]]:
    """The events of a case's golden trace."""
    path = Path(case_file)
    trace = (
        path.with_name(path.name[: -len(".case")] + ".trace.jsonl")
        if path.name.endswith(".case")
        else path
    )
    if not trace.is_file():
        raise FileNotFoundError(f"no golden trace {trace}")
    return [
        json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def _usage() -> ModelUsage:
    return ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)


def _text(model: str, content: str) -> ModelOutput:
    output = ModelOutput.from_content(model=model, content=content)
    output.usage = _usage()
    return output


def _call(model: str, step: int, tool: str, arguments: dict[str, Any]) -> ModelOutput:
    output = ModelOutput.for_tool_call(
        model=model,
        tool_name=tool,
        tool_arguments=arguments,
        tool_call_id=f"{model}-{step}",
        content="",
    )
    output.usage = _usage()
    return output


def _judge_header(messages: list[ChatMessage]) -> dict[str, Any] | None:
    for message in messages:
        text = message.text if hasattr(message, "text") else ""
        match = re.match(re.escape(JUDGE_MARKER) + r" (\{[^\n]*\})", text or "")
        if match:
            header: dict[str, Any] = json.loads(match.group(1))
            return header
    return None


def _golden_verdict(header: dict[str, Any]) -> dict[str, Any]:
    """How ``casec/golden`` answers a judge request: a golden run meets every check and
    commits no critical failure; a question is the scripted follow-up N when the golden
    trace asks it as that follow-up."""
    kind = header.get("kind")
    if kind == "followup":
        case_file = store().get(CASE_FILE_KEY)
        events = golden_trace(case_file) if isinstance(case_file, str) else []
        met = any(
            e.get("type") == "asked"
            and e.get("content") == header.get("question")
            and e.get("followup", 1) == header.get("followup")
            for e in events
        )
        return {
            "met": met,
            "reason": "as the golden trace asks it"
            if met
            else "not a question the golden trace asks as this follow-up",
        }
    met = kind == "check"
    reason = (
        "the golden trace meets every check"
        if met
        else "the golden trace commits no critical failure"
    )
    return {"met": met, "reason": reason}


#: The name of the response schema of a simulated person's turn (the library's request).
PERSON_TURN = "casec_person_turn"


def _golden_person_turn(events: list[dict[str, Any]], played: list[Any]) -> dict[str, Any]:
    """How ``casec/golden`` plays the simulated person: the golden trace's next person
    event (a ``user`` message with its thought, or the ``end``) after those played. A
    golden trace that stops at the assistant's reply ends there: the person's goal is
    met (the golden run is the competent one), with no satisfaction or verdict given."""
    person = [e for e in events if e.get("type") in ("user", "end")]
    taken = sum(1 for e in played if isinstance(e, dict) and e.get("type") in ("user", "end"))
    if taken >= len(person):
        end = {"reason": "goal_met", "satisfaction": None, "verdict": None}
        return {"message": None, "thought": None, "end": end}
    event = person[taken]
    if event["type"] == "end":
        end = {key: event.get(key) for key in ("reason", "satisfaction", "verdict")}
        return {"message": None, "thought": None, "end": end}
    return {"message": event.get("content"), "thought": event.get("thought"), "end": None}


@modelapi(name="casec")
class CasecModel(ModelAPI):
    """``casec/golden`` and ``casec/idle`` (see the module's text)."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: Optional[GenerateConfig] = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        if model_name not in ("golden", "idle"):
            raise ValueError(
                f"casec models are casec/golden and casec/idle, not casec/{model_name}"
            )

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        name = f"casec/{self.model_name}"
        offered = {t.name for t in tools}
        judged = _judge_header(input)
        if judged is not None:
            if self.model_name != "golden":
                return _text(name, "")
            return _text(name, json.dumps(_golden_verdict(judged)))
        if self.model_name == "idle":
            return _call(name, 0, SUBMIT, {"answer": ""}) if SUBMIT in offered else _text(name, "")
        case_file = store().get(CASE_FILE_KEY)
        if not isinstance(case_file, str):
            raise RuntimeError("casec/golden plays the cases of the casec/suite task only")
        events = golden_trace(case_file)
        played = store().get(TRACE_KEY) or []
        if config.response_schema is not None and config.response_schema.name == PERSON_TURN:
            return _text(name, json.dumps(_golden_person_turn(events, played)))
        # The golden run in conversation turns: the steps and reply of each (a reply the
        # person answers closes a turn; replies not answered join the last one).
        turns: list[tuple[list[dict[str, Any]], list[str]]] = [([], [])]
        for event in events:
            if event.get("type") in ("call", "asked", "question"):
                turns[-1][0].append(event)
            elif event.get("type") == "reply":
                turns[-1][1].append(event.get("content", ""))
            elif event.get("type") == "user" and turns[-1][1]:
                turns.append(([], []))
        spoken = min(sum(1 for e in played if e.get("type") == "reply"), len(turns) - 1)
        steps, replies = turns[spoken]
        earlier = sum(len(t[0]) for t in turns[:spoken])
        done = sum(1 for e in played if e.get("type") in ("call", "asked", "question"))
        if done - earlier < len(steps):
            step = steps[done - earlier]
            if step["type"] == "call":
                return _call(name, done, step["tool"], step.get("arguments") or {})
            return _call(name, done, ASK_USER, {"question": step.get("content", "")})
        reply = "\n\n".join(replies)
        if SUBMIT in offered:
            return _call(name, done, SUBMIT, {"answer": reply})
        return _text(name, reply)
