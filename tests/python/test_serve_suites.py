"""`casec serve` runs suites other than Tujora for the MCP Python SDK.

A DonnaBench-style task (personal assistant over a closed world) and a DuMate-style task
(files in a workspace, an injected network failure) are served: the SDK lists the case's
own tools with closed, typed input schemas, plays the calls of the golden trace, gets a
typed error for a wrongly typed argument, and the result record written at the end of
the session is the one `casec replay` gives for the same trace.

Run after `cargo build` (or `cargo test`): `python -m pytest tests/python`; the binary
is `$CASEC`, else `target/debug/casec`.
"""

import json
import logging
import os
import subprocess
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parents[2]
CASEC = os.environ.get("CASEC", str(ROOT / "target" / "debug" / "casec"))

# (suite, case, golden trace, a tool and a typed argument to give the wrong type)
SUITES = [
    (
        "cases/donnabench",
        "task-001",
        "cases/donnabench/personalization/task-001.trace.jsonl",
        ("restaurant_book", "party"),
    ),
    (
        "cases/dumate",
        "task_1",
        "cases/dumate/web_research/task_1.trace.jsonl",
        ("read_file", "path"),
    ),
]


def golden_calls(trace):
    events = [json.loads(line) for line in (ROOT / trace).read_text().splitlines() if line]
    return [e for e in events if e["type"] == "call"]


def serve_args(suite, case, tmp_path):
    return [
        "serve",
        str(ROOT / suite),
        "--case",
        case,
        "--trace-out",
        str(tmp_path / "trace.jsonl"),
        "--result-out",
        str(tmp_path / "result.json"),
    ]


@pytest.mark.parametrize("suite,case,trace,wrong", SUITES, ids=[s[1] for s in SUITES])
def test_the_sdk_runs_a_case_of_another_suite(tmp_path, suite, case, trace, wrong):
    calls = golden_calls(trace)
    wrong_tool, wrong_argument = wrong
    listed = {}
    answers = []

    async def session():
        params = StdioServerParameters(
            command=CASEC, args=serve_args(suite, case, tmp_path), cwd=str(ROOT)
        )
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                for tool in (await client.list_tools()).tools:
                    listed[tool.name] = tool.input_schema
                for call in calls:
                    answers.append(await client.call_tool(call["tool"], call["arguments"]))
                # The golden call of that tool, with one argument of the wrong type.
                typed = listed[wrong_tool]["properties"][wrong_argument]["type"]
                golden = next(c for c in calls if c["tool"] == wrong_tool)
                arguments = dict(golden["arguments"])
                arguments[wrong_argument] = "six" if typed != "string" else 6
                answers.append(await client.call_tool(wrong_tool, arguments))

    anyio.run(session)

    # The case's own tools, each with a closed schema; the trace's tools are among them.
    assert {c["tool"] for c in calls} <= set(listed), listed.keys()
    for name, schema in listed.items():
        assert schema["type"] == "object", name
        assert schema["additionalProperties"] is False, name
        assert isinstance(schema.get("required"), list), name
    # A wrongly typed argument is refused with a typed error naming the argument.
    refused = answers[-1]
    assert refused.is_error
    text = refused.content[0].text
    assert "INVALID_ARGUMENT" in text and wrong_argument in text, text

    # Every event the session answered is in its trace; replaying that trace gives the
    # record the session wrote.
    served = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    assert [e["tool"] for e in served] == [c["tool"] for c in calls] + [wrong_tool]
    replayed = subprocess.run(
        [CASEC, "replay", case, "--trace", str(tmp_path / "trace.jsonl"), str(ROOT / suite)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert (tmp_path / "result.json").read_text() == replayed.stdout


def golden_events(trace):
    return [json.loads(line) for line in (ROOT / trace).read_text().splitlines() if line.strip()]


@pytest.mark.parametrize(
    "suite,case,trace",
    [
        ("cases/tujora", "TUJ-022", "cases/tujora/appointments/TUJ-022.trace.jsonl"),
        ("cases/donnabench", "task-001", "cases/donnabench/personalization/task-001.trace.jsonl"),
    ],
    ids=["TUJ-022", "task-001"],
)
def test_a_harness_speaking_only_mcp_runs_ends_and_scores_a_case(tmp_path, caplog, suite, case, trace):
    """The SDK plays the whole golden trace — calls, questions, the reply — with tool
    calls only, ends the session with `sandbox.end`, and gets the record `casec replay`
    gives. The harness declares `casec/harness`, so the harness tools are listed (and
    the SDK validates their results, with no warning); it gives its model the tools
    not marked harness-only, which are the case's."""
    caplog.set_level(logging.DEBUG)
    events = golden_events(trace)
    got = {}

    async def session():
        params = StdioServerParameters(command=CASEC, args=serve_args(suite, case, tmp_path), cwd=str(ROOT))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, extensions={"casec/harness": {}}) as client:
                await client.initialize()
                got["listed"] = [
                    t.name for t in (await client.list_tools()).tools if "casec/harness" not in (t.meta or {})
                ]
                for e in events:
                    if e["type"] == "call":
                        await client.call_tool(e["tool"], e["arguments"])
                    elif e["type"] == "asked":
                        answer = await client.call_tool(
                            "sandbox.ask", {"question": e["content"], "followup": e.get("followup", 1)}
                        )
                        got.setdefault("replies", []).append(answer.structured_content["reply"])
                    elif e["type"] == "question":
                        await client.call_tool("sandbox.question", {"question": e["content"]})
                    else:
                        await client.call_tool(f"sandbox.{e['type']}", {"content": e["content"]})
                bad = await client.call_tool("sandbox.ask", {"question": 3})
                got["bad"] = (bad.is_error, bad.content[0].text)
                got["record"] = (await client.call_tool("sandbox.end", {})).structured_content

    anyio.run(session)

    assert got["listed"] and not any(name.startswith("sandbox.") for name in got["listed"]), got["listed"]
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warned == [], warned
    assert got["bad"][0] and "question" in got["bad"][1]
    if any(e["type"] == "asked" for e in events):
        assert got["replies"] and all(got["replies"])
    replayed = subprocess.run(
        [CASEC, "replay", case, "--trace", str(ROOT / trace), str(ROOT / suite)],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    assert got["record"] == json.loads(replayed.stdout)
    assert got["record"] == json.loads((tmp_path / "result.json").read_text())
