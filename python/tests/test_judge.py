"""The library's judge from Python: the same requests and judged records as `casec
judge`, calibration, and the user simulator judging whether a question is scripted."""

import asyncio
import json

import pytest

import casec

inspect_ai = pytest.importorskip("inspect_ai")

import casec.harness  # noqa: E402


class ScriptedJudge:
    """An Inspect-like model: `answer(header, messages)` gives the message text."""

    def __init__(self, answer):
        self.answer = answer
        self.name = "scripted"
        self.requests = []

    async def generate(self, messages, config=None):
        user = messages[-1].text
        header = json.loads(user.splitlines()[0][len("casec judge request ") :])
        self.requests.append((header, config))

        class Output:
            completion = self.answer(header, messages)

        return Output()


def verdict(met):
    return json.dumps({"met": met, "reason": "scripted"})


def golden_record(suite, case_id):
    session = suite.session(case_id)
    case_file = suite.case(case_id)["file"]
    events = [
        json.loads(line)
        for line in open(case_file[: -len(".case")] + ".trace.jsonl")
        if line.strip()
    ]
    for e in events:
        if e["type"] == "call":
            session.call(e["tool"], e.get("arguments", {}))
        elif e["type"] == "asked":
            session.ask(e["content"], followup=e.get("followup", 1))
        elif e["type"] == "question":
            session.question(e["content"])
        elif e["type"] == "reply":
            session.reply(e["content"])
    return session.end()


def test_the_requests_and_the_judged_record_are_casec_judges(tujora):
    record = golden_record(tujora, "TUJ-021")
    requests = tujora.judge_requests(record, model="m")
    assert [r["item"] for r in requests] == ["R1", "C1", "F3", "GF1", "GF2", "GF3", "GF4"]
    body = requests[0]["body"]
    assert body["temperature"] == 0 and body["seed"] == 0
    assert body["response_format"]["json_schema"]["strict"] is True
    assert body["messages"][1]["content"].startswith(
        'casec judge request {"case":"TUJ-021","item":"R1"'
    )
    judgements = [
        {
            "item": r["item"],
            "kind": r["kind"],
            "met": r["kind"] == "check",
            "reason": "ok",
            "evidence_digest": r["evidence_digest"],
        }
        for r in requests
    ]
    judged = tujora.judged(record, judgements, model="m")
    assert judged["outcome"] == "PASS"
    assert judged["judgements"]["settings"]["model"] == "m"
    # No verdict on one item: the case stays undecided.
    judgements[0]["met"] = None
    assert tujora.judged(record, judgements, model="m")["outcome"] == "NOT_TESTED"
    # A person's verdict keeps its author.
    judgements[0].update(met=False, source="human", author="ana")
    judged = tujora.judged(record, judgements, model="m")
    assert judged["outcome"] == "FAIL"
    assert judged["judgements"]["items"][0]["author"] == "ana"
    with pytest.raises(ValueError, match="author"):
        tujora.judged(record, [{**judgements[0], "author": None}], model="m")


def test_parse_verdict_is_the_librarys():
    assert casec.parse_verdict('{"met": false, "reason": "no"}') == {"met": False, "reason": "no"}
    for bad in ["", "yes", '{"met": 1, "reason": ""}', '{"met": true}']:
        with pytest.raises(ValueError):
            casec.parse_verdict(bad)


def test_calibration_in_python_shows_a_lenient_judge_failing_the_negatives(tujora):
    runs = tujora.labelled_runs()
    assert {r["case_id"] for r in runs} == set(tujora.case_ids)
    lenient = ScriptedJudge(lambda header, _: verdict(header["kind"] == "check"))
    report = asyncio.run(casec.harness.calibrate(tujora, lenient))
    overall = report["overall"]
    assert overall["negatives"] >= 100
    assert overall["unjudged"] == 0
    assert overall["balanced_accuracy"] <= 0.5
    assert report["cases_without_negative"] == []
    assert all(d["run"] != "golden" for d in report["disagreements"])
    silent = ScriptedJudge(lambda header, _: "I cannot say.")
    report = asyncio.run(casec.harness.calibrate(tujora, silent))
    assert report["overall"]["unjudged"] == report["overall"]["samples"]
    assert report["overall"]["accuracy"] == 0.0


def clarification_case(suite):
    """TUJ-022: its scripted follow-up asks which appointment or provider."""
    assert suite.case("TUJ-022")["followups"] == 1
    return "TUJ-022"


def test_the_user_simulator_judges_whether_a_question_is_scripted(tujora, monkeypatch):
    case_id = clarification_case(tujora)
    judge = ScriptedJudge(lambda header, _: verdict("appointment" in header["question"].lower()))
    monkeypatch.setattr(casec.harness, "_role_model", lambda *roles: judge)

    session = tujora.session(case_id)
    unscripted = asyncio.run(
        casec.harness.answer_question(session, "Shall I also water the plants?")
    )
    assert unscripted == tujora.session(case_id).question("x")
    scripted = asyncio.run(casec.harness.answer_question(session, "Which appointment do you mean?"))
    assert scripted != unscripted
    asked = [e for e in session.trace if e["type"] in ("asked", "question")]
    assert [e["type"] for e in asked] == ["question", "asked"]
    assert all(h["kind"] == "followup" for h, _ in judge.requests)
    # Once the scripted follow-up is asked, no request is needed: nothing is left to match.
    before = len(judge.requests)
    asyncio.run(casec.harness.answer_question(session, "Which appointment again?"))
    assert len(judge.requests) == before


def test_a_judge_that_fails_leaves_the_question_unscripted(tujora, monkeypatch):
    case_id = clarification_case(tujora)
    monkeypatch.setattr(
        casec.harness, "_role_model", lambda *roles: ScriptedJudge(lambda *_: "???")
    )
    session = tujora.session(case_id)
    reply = asyncio.run(casec.harness.answer_question(session, "Which appointment?"))
    assert reply == tujora.session(case_id).question("x")
