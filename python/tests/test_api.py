"""casec's Python API over the Tujora suite and small suites written here."""

import json
import math
import subprocess
from pathlib import Path

import pytest
from conftest import TUJORA

import casec

DEMO = """
suite "Demo" {
  system_prompt "You are a helpful assistant."
  clock "2026-11-09T10:30:00-05:00"
  timezone "America/New_York"
}
tool get_clock { behavior "Return the case time."; service clock }
case DEMO-1 "Clock lookup" {
  user "What time is it?"
  goal "Read the clock rather than guess."
  check "Call get_clock"
  critical "Invent a time."
}
"""


def golden(case_file: str) -> list:
    trace = Path(case_file[: -len(".case")] + ".trace.jsonl")
    if not trace.is_absolute():
        trace = Path.cwd() / trace
    return [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]


def play(session, events):
    for e in events:
        if e["type"] == "call":
            session.call(e["tool"], e.get("arguments", {}))
        elif e["type"] == "asked":
            session.ask(e["content"], e.get("followup", 1))
        elif e["type"] == "question":
            session.question(e["content"])
        elif e["type"] == "reply":
            session.reply(e["content"])
        else:
            session.user(e["content"])


def test_load_gives_cases_bundles_and_names(tujora):
    assert len(tujora.case_ids) == 100
    assert tujora.case_ids[0] == "TUJ-001"
    assert tujora.outcomes == {"passed": "PASS", "failed": "FAIL", "undecided": "NOT_TESTED"}
    assert tujora.record_keys["triggered"] == "critical_failures_triggered"
    bundle = tujora.bundle("TUJ-011")
    assert bundle["case_id"] == "TUJ-011"
    assert bundle["model_input"]["conversation"][0]["role"] == "user"
    # Blinded: nothing of the evaluator's side (the checks) is in it.
    assert "Report that notifications are not enabled" not in json.dumps(bundle)
    info = tujora.case("TUJ-011")
    assert info["category"] == "medication"
    assert [c["id"] for c in info["checks"]] == ["R1", "A1", "A2", "A3", "S1", "C1"]
    assert info["checks"][1]["decided"] == "machine"


def test_bundle_is_what_casec_bundle_writes(tujora, casec_bin, tmp_path):
    subprocess.run(
        [casec_bin, "bundle", str(TUJORA), "-o", str(tmp_path / "b")],
        check=True,
        capture_output=True,
    )
    for case_id in ["TUJ-001", "TUJ-050", "TUJ-100"]:
        written = json.loads((tmp_path / "b" / f"{case_id}.json").read_text())
        assert tujora.bundle(case_id) == written


def test_golden_trace_through_a_session_matches_casec_replay(tujora, casec_bin):
    for case_id in ["TUJ-011", "TUJ-034", "TUJ-062"]:
        info = tujora.case(case_id)
        session = tujora.session(case_id)
        play(session, golden(info["file"]))
        record = session.end()
        assert session.ended
        trace = Path(info["file"][: -len(".case")] + ".trace.jsonl")
        replayed = subprocess.run(
            [casec_bin, "replay", case_id, "--trace", str(trace), str(TUJORA)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        assert record == json.loads(replayed), case_id
        assert "fail" not in record["checks"].values()
        assert record["critical_failures_triggered"] == []


def test_tools_are_what_casec_serve_lists(tujora, casec_bin):
    request = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}) + "\n"
    served = subprocess.run(
        [casec_bin, "serve", str(TUJORA), "--case", "TUJ-011"],
        input=request,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    listed = json.loads(served.splitlines()[0])["result"]["tools"]
    assert tujora.session("TUJ-011").tools == listed
    assert {t["name"] for t in listed} == {
        "get_clock",
        "read_records",
        "verify_record",
        "write_record",
    }


def test_call_ask_reply_end(tujora):
    session = tujora.session("TUJ-011")
    clock = session.call("get_clock", {})
    assert clock == {
        "status": "ok",
        "current_time": "2026-11-09T10:30:00-05:00",
        "timezone": "America/New_York",
    }
    assert session.call("get_clock") == clock  # arguments default to none
    unknown = session.call("launch_rocket", {})
    assert unknown["status"] == "error" and unknown["error"] == "UNKNOWN_TOOL"
    refused = session.call("read_records", {"collection": "no_such_collection"})
    assert refused["status"] == "error"
    assert session.ask("Anything else?") == "I do not have any more information right now."
    session.reply("Nothing was set.")
    assert [e["type"] for e in session.trace] == [
        "call",
        "call",
        "call",
        "call",
        "question",
        "reply",
    ]
    record = session.end()
    assert record["outcome"] == "FAIL"  # no reminder attempt: A1 fails
    assert record["checks"]["A1"] == "fail"
    assert record["assistant_response"] == "Nothing was set."
    with pytest.raises(RuntimeError, match="has ended"):
        session.call("get_clock", {})


def test_scripted_followup(tujora):
    case_id = next(c for c in tujora.case_ids if tujora.case(c)["followups"] > 0)
    session = tujora.session(case_id)
    scripted = session.ask("Which one do you mean?")
    assert scripted and scripted != "I do not have any more information right now."
    assert session.trace[-1] == {"type": "asked", "content": "Which one do you mean?"}
    with pytest.raises(ValueError, match="scripted follow-up"):
        session.ask("?", followup=99)
    with pytest.raises(ValueError, match="from 1"):
        session.ask("?", followup=0)


def test_bad_inputs_raise_python_exceptions(tujora):
    with pytest.raises(KeyError, match="no case `NOPE`"):
        tujora.session("NOPE")
    with pytest.raises(KeyError):
        tujora.bundle("NOPE")
    with pytest.raises(KeyError):
        tujora.case("NOPE")
    session = tujora.session("TUJ-011")
    with pytest.raises(TypeError, match="must be a dict"):
        session.call("get_clock", ["not", "a", "dict"])
    with pytest.raises(TypeError, match="must be a dict"):
        session.call("get_clock", "{}")
    with pytest.raises(TypeError, match="JSON-serialisable"):
        session.call("read_records", {"query": object()})
    with pytest.raises(TypeError, match="JSON-serialisable"):
        session.call("read_records", {"query": math.nan})
    with pytest.raises(TypeError):
        session.reply(42)
    # The session goes on after refused inputs; none of them reached the trace.
    assert session.trace == []


def test_compile_error_carries_diagnostics(tmp_path):
    (tmp_path / "suite.case").write_text(
        DEMO.replace('check "Call get_clock"', "tags nonexistent_tag")
    )
    with pytest.raises(casec.CompileError) as raised:
        casec.load(tmp_path)
    diagnostics = raised.value.diagnostics
    assert diagnostics, "the error carries its diagnostics"
    first = diagnostics[0]
    for key in ("code", "severity", "message", "file", "line", "help"):
        assert key in first
    assert first["severity"] == "error"
    assert first["file"].endswith("suite.case")
    assert first["code"] in str(raised.value)
    with pytest.raises(casec.CompileError, match="no such file or folder"):
        casec.load(tmp_path / "missing")


def test_a_case_without_world_has_no_session(tmp_path):
    (tmp_path / "suite.case").write_text(DEMO)
    demo = casec.load(tmp_path)
    assert demo.case_ids == ["DEMO-1"]
    assert demo.bundle("DEMO-1")["id"] == "DEMO-1"
    with pytest.raises(ValueError, match="no world"):
        demo.session("DEMO-1")


def test_suite_file_path_loads_its_suite():
    assert casec.load(TUJORA / "suite.case").case_ids[:1] == ["TUJ-001"]


def test_a_session_can_be_used_from_another_thread(tujora):
    import threading

    session = tujora.session("TUJ-011")
    results = []
    thread = threading.Thread(target=lambda: results.append(session.call("get_clock", {})))
    thread.start()
    thread.join()
    assert results and results[0]["status"] == "ok"
    assert session.trace[0]["tool"] == "get_clock"
