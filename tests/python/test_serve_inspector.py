"""`casec serve` as the MCP Inspector's command line drives it.

The Inspector (`@modelcontextprotocol/inspector`, its `--cli` mode) starts the server,
initializes as its own MCP client (the TypeScript SDK's), lists the tools or calls one,
and prints the answer as JSON. It is skipped unless installed: `.ci/run` installs it
into `target/inspector` (`npm install --prefix target/inspector
@modelcontextprotocol/inspector@0.15.0`), or `$MCP_INSPECTOR` names its
`mcp-inspector` program.

Run after `cargo build`: `python -m pytest tests/python`; the binary is `$CASEC`, else
`target/debug/casec`.
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASEC = os.environ.get("CASEC", str(ROOT / "target" / "debug" / "casec"))
INSPECTOR = os.environ.get(
    "MCP_INSPECTOR", str(ROOT / "target" / "inspector" / "node_modules" / ".bin" / "mcp-inspector")
)

pytestmark = pytest.mark.skipif(
    not Path(INSPECTOR).is_file() or shutil.which("node") is None,
    reason="the MCP Inspector is not installed (npm install --prefix target/inspector @modelcontextprotocol/inspector@0.15.0)",
)


def inspector(*method_args):
    """The Inspector's answer to one method against `casec serve` of TUJ-011."""
    done = subprocess.run(
        [
            INSPECTOR,
            "--cli",
            CASEC,
            "serve",
            str(ROOT / "cases" / "tujora"),
            "--case",
            "TUJ-011",
            *method_args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_inspector_lists_the_case_tools_only():
    listed = inspector("--method", "tools/list")
    names = [tool["name"] for tool in listed["tools"]]
    assert names == ["get_clock", "read_records", "verify_record", "write_record"]
    for tool in listed["tools"]:
        schema = tool["inputSchema"]
        assert schema["type"] == "object" and schema["additionalProperties"] is False, tool
    write = next(t for t in listed["tools"] if t["name"] == "write_record")
    assert write["inputSchema"]["properties"]["fields"]["additionalProperties"] is False


def test_the_inspector_calls_a_tool():
    answer = inspector(
        "--method",
        "tools/call",
        "--tool-name",
        "read_records",
        "--tool-arg",
        "collection=medication_schedules",
        "--tool-arg",
        "query=evening",
    )
    assert answer["isError"] is False, answer
    result = json.loads(answer["content"][0]["text"])
    assert result["status"] == "ok", result
    assert result["records"], result


def test_the_inspector_gets_a_tool_error_as_a_result():
    answer = inspector(
        "--method", "tools/call", "--tool-name", "read_records", "--tool-arg", "collection=socks"
    )
    assert answer["isError"] is True, answer
    assert "INVALID_ARGUMENT" in answer["content"][0]["text"], answer
