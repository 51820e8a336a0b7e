"""Simulated people under Inspect (docs/people.md): a case whose shape gives the person
fields is a conversation. The assistant's replies go to the person (the ``user`` model
role), the person's messages come back to the assistant, and the run ends when the
person ends it; the person's prompt holds the person's fields and the conversation and
nothing the evaluator holds.

The fixture is cases/donnabench's task-001 made a conversation: person fields and a
golden trace that goes on after the booking (a question, an answer, the person's end).
"""

import json
import shutil
from pathlib import Path
from typing import Any

import inspect_ai
import pytest
from conftest import REPO
from inspect_ai.log import resolve_sample_attachments
from inspect_ai.model import ModelOutput, ModelUsage, get_model

import casec

PERSON = """  goals "Get the book club dinner booked without explaining everything again."
  knows "The club may be seven this month if Joan comes back from her trip."
  style "Warm, a little old-fashioned, signs with her name."
  ends_when "Ends happily once the booking is confirmed."
"""

MORE = [
    {"type": "user", "content": "Will they have the back room?", "thought": "It remembered."},
    {"type": "reply", "content": "Yes: the quiet back room is where they seat groups of six."},
    {"type": "end", "reason": "goal_met", "satisfaction": 5, "verdict": "Booked without fuss."},
]


@pytest.fixture
def conversation(tmp_path: Path) -> Path:
    suite = tmp_path / "donnabench"
    shutil.copytree(REPO / "cases" / "donnabench", suite)
    case = suite / "personalization" / "task-001.case"
    text = case.read_text()
    case.write_text(text.replace("  check_on both", PERSON + "  check_on both", 1))
    trace = suite / "personalization" / "task-001.trace.jsonl"
    trace.write_text(trace.read_text() + "".join(json.dumps(e) + "\n" for e in MORE))
    return suite


def run(suite: Path, tmp_path: Path, user: Any) -> inspect_ai.log.EvalLog:
    (log,) = inspect_ai.eval(
        "casec/suite",
        task_args={"path": str(suite), "cases": "task-001"},
        model="casec/golden",
        model_roles={"user": user, "grader": "casec/golden"},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def test_golden_plays_the_whole_conversation(conversation: Path, tmp_path: Path) -> None:
    log = run(conversation, tmp_path, "casec/golden")
    sample = (log.samples or [])[0]
    record = sample.scores["casec_scorer"].metadata["record"]
    assert record["outcome"] == casec.load(conversation).outcomes["passed"]
    assert record["ending"] == {
        "reason": "goal_met",
        "satisfaction": 5,
        "verdict": "Booked without fuss.",
    }
    kinds = [e["type"] for e in record["trace"]]
    assert kinds[-4:] == ["reply", "user", "reply", "end"]
    user = [e for e in record["trace"] if e["type"] == "user"][0]
    assert user["thought"] == "It remembered."


def test_a_scripted_person_talks_with_the_assistant_until_it_ends(
    conversation: Path, tmp_path: Path
) -> None:
    """Inspect's mockllm plays the person: its message reaches the assistant as the next
    user message, the assistant's reply reaches the person's next request, and the run
    ends when the person ends it."""
    turns = [
        {"message": "Is it quiet there, dear?", "thought": "Loud rooms tire me.", "end": None},
        {
            "message": None,
            "thought": None,
            "end": {"reason": "gave_up", "satisfaction": 2, "verdict": "It never said."},
        },
    ]
    outputs = []
    for turn in turns:
        output = ModelOutput.from_content(model="mockllm/model", content=json.dumps(turn))
        # With usage given, Inspect counts no tokens itself (no tokenizer download).
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        outputs.append(output)
    person = get_model("mockllm/model", custom_outputs=outputs)
    log = run(conversation, tmp_path, person)
    sample = resolve_sample_attachments((log.samples or [])[0])
    said = [m.text for m in sample.messages if m.role == "user"]
    assert said[-1] == "Is it quiet there, dear?"
    record = sample.scores["casec_scorer"].metadata["record"]
    assert record["ending"] == {"reason": "gave_up", "satisfaction": 2, "verdict": "It never said."}
    # The person's second request held the assistant's reply to the person's question.
    requests = [
        e
        for e in sample.events
        if e.event == "model" and "casec_person_turn" in json.dumps(e.config.model_dump())
    ]
    assert len(requests) == 2
    second = requests[1].input[-1].text
    assert "Is it quiet there, dear?" in second
    assert "Yes: the quiet back room" in second


def test_the_persons_prompt_holds_no_evaluator_text(conversation: Path) -> None:
    suite = casec.load(conversation)
    for case_id in suite.case_ids:
        info = suite.case(case_id)
        if not info["has_person"]:
            continue
        body = suite.session(case_id).person_request()
        prompt = " ".join(m["content"] for m in body["messages"])
        hidden = [c["text"] for c in info["checks"]] + [
            c["text"] for c in info["critical_failures"]
        ]
        for text in hidden:
            assert text not in prompt, (case_id, text)


def test_a_turn_casec_cannot_read_is_refused() -> None:
    with pytest.raises(ValueError, match="neither says anything"):
        casec.parse_person_turn('{"message": null, "thought": null, "end": null}')
    turn = casec.parse_person_turn('{"message": "ok", "thought": null, "end": null}')
    assert turn == {"message": "ok", "thought": None, "end": None}
