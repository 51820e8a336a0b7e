#!/usr/bin/env python3
"""The adapter of the LSP fixture's `tracker` (docs/tools.md, the adapter protocol):
a tracker that never has a fix, as an offline tag reports."""

import json
import sys

for line in sys.stdin:
    if line.strip():
        item = json.loads(line)["arguments"]["item"]
        print(json.dumps({"result": {"item": item, "location": None}}), flush=True)
