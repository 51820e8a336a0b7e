#!/usr/bin/env python3
"""Grades one run of one task with casec's own checks, and writes its reward file.

Written by `casec export` beside `task.json` and `suite/` (a copy of the suite the task
comes from). Needs Python 3.9+ and the casec package (`pip install casec`, the version
that exported the task).

    python3 evaluate.py ROOT --log TRACE.jsonl [--reward reward.json]

ROOT is the folder the run's absolute paths live under: `/outputs/rates.csv` is
ROOT/outputs/rates.csv. TRACE.jsonl is the run's log in casec's trace format (one event
per line: the tool calls with their arguments, the replies; docs/traces.md); an empty
file is a run that made no call. The run is replayed in the task's sandbox and ROOT's
files become its file store, so every check and critical failure is decided by the same
code as `casec replay --workspace ROOT` (nothing is re-implemented here).

Prints one line per check and critical failure, then writes the reward file (keys
declared by the suite's shape) and prints it. Exits 0 when the run passed (every check
passed, nothing left for a reader, no critical failure), 1 otherwise, 2 when it cannot
grade (no casec package, an unreadable log, workspace or task).
"""

import argparse
import json
import os
import sys


def main(argv: list) -> int:
    parser = argparse.ArgumentParser(
        description="Grade one run of this task with casec."
    )
    parser.add_argument("root", help="the folder the run's absolute paths live under")
    parser.add_argument("--log", required=True, help="the run's trace (JSON Lines)")
    parser.add_argument(
        "--reward", default="reward.json", help="where to write the reward file"
    )
    args = parser.parse_args(argv[1:])
    try:
        import casec
    except ImportError:
        print("evaluate.py needs the casec package: pip install casec", file=sys.stderr)
        return 2
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        with open(os.path.join(here, "task.json"), encoding="utf-8") as f:
            task = json.load(f)
        with open(args.log, encoding="utf-8") as f:
            trace = [json.loads(line) for line in f if line.strip()]
        suite = casec.load(os.path.join(here, task["suite"]))
        record = suite.replay(task["case_id"], trace, workspace=args.root)
        reward = suite.reward(record, task["export"])
    except (OSError, ValueError, KeyError, casec.CompileError, casec.TrustError) as e:
        print(f"cannot grade the run: {e}", file=sys.stderr)
        return 2
    keys = suite.record_keys
    for check, status in record[keys["checks"]].items():
        print(f"{check} {status}")
    for failure in record[keys["triggered"]]:
        print(f"{failure} triggered")
    text = json.dumps(reward, ensure_ascii=False, indent=2) + "\n"
    with open(args.reward, "w", encoding="utf-8") as f:
        f.write(text)
    print(text, end="")
    passed = record[keys["outcome"]] == suite.outcomes["passed"]
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
