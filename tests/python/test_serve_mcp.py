"""`casec serve` as real clients drive it.

The normal flow goes through the MCP Python SDK (`mcp` on PyPI): initialize, list the
tools, call them, end the session the way the SDK does (close the server's input, then
SIGTERM after a grace period). The edge cases the SDK never produces are written as
raw frames to the server's standard input: invalid UTF-8, batches, JSON that is not a
request, a client's responses, ids beyond a float, SIGTERM mid-session, and a second
server for the same records.

Run after `cargo build` (or `cargo test`): `python -m pytest tests/python`; the binary
is `$CASEC`, else `target/debug/casec`.
"""

import json
import logging
import os
import signal
import subprocess
import time
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parents[2]
CASEC = os.environ.get("CASEC", str(ROOT / "target" / "debug" / "casec"))
CASE = "TUJ-011"
READ_REMINDERS = {"collection": "reminders", "query": ""}


def serve_args(tmp_path):
    return [
        "serve",
        str(ROOT / "cases" / "tujora"),
        "--case",
        CASE,
        "--trace-out",
        str(tmp_path / "trace.jsonl"),
        "--result-out",
        str(tmp_path / "result.json"),
    ]


def trace_lines(tmp_path):
    text = (tmp_path / "trace.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def test_the_sdk_drives_a_session_and_its_records_are_written(tmp_path):
    async def session():
        params = StdioServerParameters(command=CASEC, args=serve_args(tmp_path), cwd=str(ROOT))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as client:
                init = await client.initialize()
                assert init.server_info.name == "casec"
                tools = await client.list_tools()
                names = [tool.name for tool in tools.tools]
                assert "read_records" in names and "get_clock" in names
                clock = await client.call_tool("get_clock", {})
                assert clock.content, clock
                await client.call_tool("read_records", READ_REMINDERS)

    started = time.monotonic()
    anyio.run(session)
    # The server ends at the end of its input, before the SDK's SIGTERM.
    assert time.monotonic() - started < 10
    events = trace_lines(tmp_path)
    assert [e["tool"] for e in events] == ["get_clock", "read_records"]
    record = json.loads((tmp_path / "result.json").read_text())
    assert record["case_id"] == CASE
    assert len(record["tool_trace"]) == 2


class Raw:
    """A server spoken to in raw lines."""

    def __init__(self, tmp_path):
        self.process = subprocess.Popen(
            [CASEC, *serve_args(tmp_path)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def send(self, data: bytes):
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def answer(self):
        line = self.process.stdout.readline()
        assert line, "the server answered nothing and ended"
        return json.loads(line)

    def request(self, message):
        self.send(json.dumps(message).encode())
        return self.answer()

    def call(self, id_):
        return self.request(
            {
                "jsonrpc": "2.0",
                "id": id_,
                "method": "tools/call",
                "params": {"name": "read_records", "arguments": READ_REMINDERS},
            }
        )

    def close(self):
        self.process.stdin.close()
        return self.process.wait(timeout=30)


@pytest.fixture
def raw(tmp_path):
    server = Raw(tmp_path)
    yield server
    if server.process.poll() is None:
        server.process.kill()
        server.process.wait()


def test_invalid_utf8_gets_a_parse_error_and_the_session_goes_on(raw):
    raw.send(b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": "\xff\xfe"}')
    answer = raw.answer()
    assert answer["error"]["code"] == -32700
    assert answer["id"] is None
    assert raw.request({"jsonrpc": "2.0", "id": 2, "method": "ping"})["result"] == {}
    assert raw.close() == 0


@pytest.mark.parametrize("frame", [b"42", b"null", b'"str"', b"{}", b"true"])
def test_json_that_is_not_a_request_is_an_invalid_request(raw, frame):
    raw.send(frame)
    answer = raw.answer()
    assert answer["error"]["code"] == -32600
    assert answer["id"] is None


def test_a_batch_is_answered_per_json_rpc(raw):
    batch = [
        {"jsonrpc": "2.0", "id": "a", "method": "ping"},
        7,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "b", "method": "no/such"},
    ]
    answers = raw.request(batch)
    assert [a["id"] for a in answers] == ["a", None, "b"]
    assert answers[0]["result"] == {}
    assert answers[1]["error"]["code"] == -32600
    assert answers[2]["error"]["code"] == -32601
    assert raw.request([])["error"]["code"] == -32600


def test_a_clients_responses_are_not_answered(raw):
    raw.send(b'{"jsonrpc": "2.0", "id": 5, "result": {}}')
    raw.send(b'{"jsonrpc": "2.0", "id": 6, "error": {"code": -1, "message": "no"}}')
    # The next answer is the ping's: nothing was said to the responses.
    assert raw.request({"jsonrpc": "2.0", "id": 7, "method": "ping"})["id"] == 7


def test_ids_are_echoed_exactly(raw):
    for written in [b"123456789012345678901234567890", b"1.0e400", b'"\\u0041b"', b"-0"]:
        raw.send(b'{"jsonrpc": "2.0", "id": ' + written + b', "method": "ping"}')
        line = raw.process.stdout.readline()
        assert line.startswith(b'{"jsonrpc":"2.0","id":' + written + b","), line


def test_sigterm_writes_the_records_the_session_has(raw, tmp_path):
    raw.call(1)
    raw.call(2)
    raw.process.send_signal(signal.SIGTERM)
    assert raw.process.wait(timeout=30) == 0
    assert len(trace_lines(tmp_path)) == 2
    record = json.loads((tmp_path / "result.json").read_text())
    assert len(record["tool_trace"]) == 2


def test_a_killed_server_keeps_every_answered_event(raw, tmp_path):
    for id_ in range(3):
        raw.call(id_)
    raw.process.kill()
    raw.process.wait()
    assert len(trace_lines(tmp_path)) == 3


def test_a_second_server_for_the_same_records_is_refused(raw, tmp_path):
    raw.call(1)
    second = subprocess.run(
        [CASEC, *serve_args(tmp_path)], cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True
    )
    assert second.returncode == 2
    assert b"the file exists" in second.stderr
    raw.call(2)
    assert raw.close() == 0
    assert len(trace_lines(tmp_path)) == 2


def test_a_normal_not_found_is_no_error_and_each_result_is_sent_once(tmp_path):
    """`verify_record` finding nothing is a normal answer, not an error; a result comes
    once (one text item, no `structuredContent` copy) and does not echo the query."""
    answers = {}

    async def session():
        params = StdioServerParameters(command=CASEC, args=serve_args(tmp_path), cwd=str(ROOT))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                answers["verify"] = await client.call_tool(
                    "verify_record",
                    {"collection": "reminders", "record_id_or_request_id": "R99"},
                )
                answers["read"] = await client.call_tool(
                    "read_records", {"collection": "reminders", "query": "zzz-unlikely"}
                )

    anyio.run(session)
    for name, answer in answers.items():
        assert not answer.is_error, (name, answer)
        assert len(answer.content) == 1, (name, answer)
        assert answer.structured_content is None, (name, answer)
    verify = json.loads(answers["verify"].content[0].text)
    assert verify["status"] == "not_found", verify
    read = answers["read"].content[0].text
    assert "zzz-unlikely" not in read, read


HARNESS = "casec/harness"
HARNESS_CALLS = [
    ("sandbox.ask", {"question": "Do you mean the evening dose?", "followup": 1}),
    ("sandbox.question", {"question": "Shall I tell anyone?"}),
    ("sandbox.user", {"content": "Thanks."}),
    ("sandbox.reply", {"content": "No reminder was created."}),
    ("sandbox.end", {}),
]


def sdk_warnings(caplog):
    """Every record logged at WARNING or above (the SDK's session logs under the name
    `client`, so no logger is left out)."""
    return [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_harness_declaring_the_capability_calls_every_harness_tool_without_a_warning(tmp_path, caplog):
    """With `casec/harness` declared (the SDK's `extensions=`), the harness tools are
    listed, marked harness-only, after the case's tools; the SDK validates each result
    against its output schema and logs nothing; after `sandbox.end`, any call is a tool
    error result, not an exception."""
    caplog.set_level(logging.DEBUG)
    got = {}

    async def session():
        params = StdioServerParameters(command=CASEC, args=serve_args(tmp_path), cwd=str(ROOT))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, extensions={HARNESS: {}}) as client:
                init = await client.initialize()
                got["capabilities"] = init.capabilities.experimental
                listed = (await client.list_tools()).tools
                got["listed"] = listed
                # Tujora's case has no simulated person: the person's turn is a tool error.
                got["person"] = await client.call_tool("sandbox.person_turn", {})
                got["results"] = [await client.call_tool(name, args) for name, args in HARNESS_CALLS]
                got["after"] = [
                    await client.call_tool("sandbox.reply", {"content": "late"}),
                    await client.call_tool("read_records", READ_REMINDERS),
                ]

    anyio.run(session)

    assert got["capabilities"] == {HARNESS: {}}
    names = [t.name for t in got["listed"]]
    harness = [t for t in got["listed"] if HARNESS in (t.meta or {})]
    model = [t for t in got["listed"] if HARNESS not in (t.meta or {})]
    expected = [name for name, _ in HARNESS_CALLS] + ["sandbox.person_turn"]
    assert sorted(t.name for t in harness) == sorted(expected)
    assert got["person"].is_error, got["person"]
    assert json.loads(got["person"].content[0].text)["error"] == "NO_PERSON_TURN"
    assert names[: len(model)] == [t.name for t in model], "the case's tools come first"
    assert not any(t.name.startswith("sandbox.") for t in model)
    for tool in harness:
        assert tool.meta[HARNESS]["harnessOnly"] is True
        assert tool.output_schema and tool.output_schema["type"] == "object", tool
        assert tool.input_schema["additionalProperties"] is False, tool
    for (name, _), result in zip(HARNESS_CALLS, got["results"]):
        assert not result.is_error, (name, result)
        assert result.structured_content is not None, (name, result)
    assert got["results"][0].structured_content["reply"]
    assert got["results"][-1].structured_content["case_id"] == CASE
    for result in got["after"]:
        assert result.is_error, result
        text = json.loads(result.content[0].text)
        assert text["error"] == "SESSION_ENDED" and "new session" in text["message"], text
    assert sdk_warnings(caplog) == [], [r.getMessage() for r in sdk_warnings(caplog)]
    # The events before the end are the trace; nothing after it was recorded.
    assert [e["type"] for e in trace_lines(tmp_path)] == ["asked", "question", "user", "reply"]


def test_without_the_capability_the_model_is_never_shown_the_harness_tools(tmp_path, caplog):
    """A harness that hands `tools/list` to its model (no capability declared) lists only
    the case's tools; the harness tools still answer when called (and the SDK warns that
    it cannot validate them: what the capability is for)."""
    caplog.set_level(logging.DEBUG)
    got = {}

    async def session():
        params = StdioServerParameters(command=CASEC, args=serve_args(tmp_path), cwd=str(ROOT))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as client:
                init = await client.initialize()
                got["capabilities"] = init.capabilities.experimental
                got["listed"] = [t.name for t in (await client.list_tools()).tools]
                got["end"] = await client.call_tool("sandbox.end", {})
                got["after"] = await client.call_tool("get_clock", {})

    anyio.run(session)

    assert got["capabilities"] is None
    assert got["listed"] == ["get_clock", "read_records", "verify_record", "write_record"]
    assert got["end"].structured_content["case_id"] == CASE
    assert got["after"].is_error
    assert "SESSION_ENDED" in got["after"].content[0].text
    warned = [r.getMessage() for r in sdk_warnings(caplog)]
    assert any("sandbox.end not listed by server" in w for w in warned), warned
