#!/usr/bin/env python3
"""Checks a produced workspace against the machine expectations of one case.

Written by `casec export` beside `expectations.json`; needs Python 3 and nothing else.

    python3 evaluate.py ROOT

ROOT is the folder the task's absolute paths live under: `/outputs/rates.csv` is
ROOT/outputs/rates.csv. Each check whose expectations are all about files is decided
here (a file at exactly its path, the texts it contains, a CSV table: its columns, its
row count, rows that must be present, numbers within a tolerance); the checks a trace
or a reader decides are listed as not checked. Prints one line per check, then a JSON
summary; exits 0 when every check it decides passes and no critical failure it decides
is triggered, 1 otherwise, 2 when the expectations cannot be read. The summary lists
what it left to the trace or a reader (`not_checked`): a full grade needs those too.

The rules are the reference sandbox's (docs/worlds.md, "Assertions"): text is compared
without regard to case, runs of white space as one space; a cell equals its expected
value as a number when both are numbers, else as text.
"""
import csv
import io
import json
import os
import re
import sys

NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def normalize(text):
    return " ".join(text.split()).lower()


def number(text):
    text = text.strip()
    return float(text) if NUMBER.fullmatch(text) else None


def cell_holds(cell, expected, within):
    actual, wanted = number(cell), number(expected)
    if actual is not None and wanted is not None:
        return abs(actual - wanted) <= (within or 0.0)
    return within is None and normalize(cell) == normalize(expected)


def counts(count, n):
    if "exactly" in count:
        return n == count["exactly"]
    if "at_least" in count:
        return n >= count["at_least"]
    return n <= count["at_most"]


def read_file(root, path):
    relative = path.lstrip("/")
    if any(part == ".." for part in relative.split("/")):
        return None
    try:
        with open(os.path.join(root, relative), encoding="utf-8", newline="") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def table_holds(spec, content):
    # As the reference sandbox reads CSV: a byte-order mark is not part of the header,
    # and blank lines are no rows.
    text = content[1:] if content.startswith("\ufeff") else content
    rows = [row for row in csv.reader(io.StringIO(text, newline="")) if row]
    if not rows:
        return False
    header = [h.strip() for h in rows[0]]
    data = rows[1:]
    if spec["columns"] and spec["columns"] != header:
        return False
    if spec["rows"] is not None and not counts(spec["rows"], len(data)):
        return False
    for cells in spec["rows_with"]:
        def matches(row):
            for cell in cells:
                if cell["column"] not in header:
                    return False
                i = header.index(cell["column"])
                if i >= len(row) or not cell_holds(row[i], cell["value"], cell["within"]):
                    return False
            return True
        if not any(matches(row) for row in data):
            return False
    return True


def holds(assertion, root):
    kind = assertion["kind"]
    if kind == "any":
        return any(holds(a, root) for a in assertion["of"])
    if kind == "not":
        return not all(holds(a, root) for a in assertion["of"])
    if kind != "file":
        raise ValueError(f"not a file expectation: {kind}")
    content = read_file(root, assertion["path"])
    if content is None:
        return False
    text = normalize(content)
    if not all(normalize(t) in text for t in assertion["contains"]):
        return False
    return assertion["csv"] is None or table_holds(assertion["csv"], content)


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: python3 evaluate.py ROOT (a folder)", file=sys.stderr)
        return 2
    root = argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        with open(os.path.join(here, "expectations.json"), encoding="utf-8") as f:
            spec = json.load(f)
    except (OSError, ValueError) as e:
        print(f"cannot read expectations.json: {e}", file=sys.stderr)
        return 2
    results = {}
    for check in spec["checks"]:
        passed = all(holds(a, root) for a in check["assertions"])
        results[check["id"]] = "pass" if passed else "fail"
        print(f"{check['id']} {results[check['id']]}: {check['requirement']}")
    triggered = []
    for failure in spec["critical_failures"]:
        if all(holds(a, root) for a in failure["assertions"]):
            triggered.append(failure["id"])
            print(f"{failure['id']} triggered: {failure['description']}")
    for other in spec["not_checked"]:
        print(f"{other['id']} not checked here (a trace or a reader decides it): {other['requirement']}")
    complete = all(r == "pass" for r in results.values()) and not triggered
    summary = {
        "case_id": spec["case_id"],
        "checks": results,
        "critical_failures_triggered": triggered,
        "not_checked": [other["id"] for other in spec["not_checked"]],
        "complete_pass": 1 if complete else 0,
    }
    print(json.dumps(summary, ensure_ascii=False))
    return 0 if complete else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
