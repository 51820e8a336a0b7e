"""Both DonnaBench configs casec exports load with `datasets.load_dataset("json", …)`.

The card's loading code reads the tasks config and the traces config from the Hub; the
files `casec export cases/donnabench --format donnabench` and `--format
donnabench_traces` write must load the same way, with the card's columns, one row per
task and one per observed turn, and the structured values intact: each task's evidence
objects, each turn's tool calls (a JSON text, as datasets keep lists whose items differ).
"""

import json
import subprocess
from pathlib import Path

import datasets
from conftest import REPO

DONNABENCH = REPO / "cases" / "donnabench"


def export(casec_bin: str, fmt: str, out: Path) -> list[dict[str, object]]:
    subprocess.run(
        [casec_bin, "export", str(DONNABENCH), "--format", fmt, "-o", str(out)],
        check=True,
        capture_output=True,
    )
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_tasks_config_loads_with_its_evidence_objects(tmp_path: Path, casec_bin: str) -> None:
    rows = export(casec_bin, "donnabench", tmp_path / "tasks.jsonl")
    tasks = datasets.load_dataset("json", data_files=str(tmp_path / "tasks.jsonl"), split="train")
    assert tasks.num_rows == len(rows) >= 15
    assert tasks.column_names == list(rows[0].keys())
    for loaded, row in zip(tasks, rows):
        assert loaded["task_id"] == row["task_id"]
        assert loaded["evidence"] == row["evidence"]
        assert {"episode", "turn", "quote", "reason"} == set(loaded["evidence"][0])


def test_traces_config_loads_one_row_per_turn(tmp_path: Path, casec_bin: str) -> None:
    rows = export(casec_bin, "donnabench_traces", tmp_path / "traces.jsonl")
    traces = datasets.load_dataset("json", data_files=str(tmp_path / "traces.jsonl"), split="train")
    assert traces.num_rows == len(rows)
    assert len({row["episode_id"] for row in rows}) >= 20
    assert traces.column_names == list(rows[0].keys())
    for loaded, row in zip(traces, rows):
        assert (loaded["episode_id"], loaded["turn"]) == (row["episode_id"], row["turn"])
        assert json.loads(loaded["tool_calls"]) == json.loads(str(row["tool_calls"]))
        assert loaded["cited_by"] == row["cited_by"]
        assert loaded["satisfaction"] == row["satisfaction"]
