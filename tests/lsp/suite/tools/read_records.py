#!/usr/bin/env python3
"""The adapter of the LSP fixture's `read_records` (docs/tools.md, the adapter
protocol): lists the records of every collection it is sent whose fields mention the
query."""

import json
import sys

for line in sys.stdin:
    if not line.strip():
        continue
    request = json.loads(line)
    query = request["arguments"].get("query", "").lower()
    found = [
        record
        for records in request["collections"].values()
        for record in records
        if query in json.dumps(record).lower()
    ]
    print(json.dumps({"result": {"records": found}}), flush=True)
