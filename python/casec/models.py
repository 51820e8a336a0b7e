"""Smoke-test models registered with Inspect: ``casec/golden`` and ``casec/idle``.

They need no API key and no network, so a run of ``casec/suite`` can be tested offline:

* ``casec/golden`` plays each case's golden trace (``<ID>.trace.jsonl`` beside the case
  file): its tool calls one by one as assistant tool calls (an ``asked`` or
  ``question`` event as a call of ``ask_user``), then its final reply (through
  ``submit`` when the agent offers one, as ``react`` does). As the ``grader`` role it
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
    ChatMessageAssistant,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_ai.util import store

from .harness import ASK_USER, CASE_FILE_KEY, JUDGE_MARKER

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
        steps = [e for e in events if e.get("type") in ("call", "asked", "question")]
        replies = [e.get("content", "") for e in events if e.get("type") == "reply"]
        done = sum(1 for m in input if isinstance(m, ChatMessageAssistant) and m.tool_calls)
        if done < len(steps):
            step = steps[done]
            if step["type"] == "call":
                return _call(name, done, step["tool"], step.get("arguments") or {})
            return _call(name, done, ASK_USER, {"question": step.get("content", "")})
        reply = "\n\n".join(replies)
        if SUBMIT in offered:
            return _call(name, done, SUBMIT, {"answer": reply})
        return _text(name, reply)
