#!/usr/bin/env python3
"""The adapter of `note_reminder` (docs/tools.md, the adapter protocol): saves a
reminder labelled with the text, at the case clock, and answers how many reminders
there were before."""

import json
import sys

for line in sys.stdin:
    if not line.strip():
        continue
    request = json.loads(line)
    reminders = request["collections"].get("reminders", [])
    answer = {
        "result": {"reminders_before": len(reminders)},
        "changes": [
            {
                "create": "reminders",
                "fields": {
                    "label": request["arguments"]["text"],
                    "at": request["clock"]["current_time"],
                },
            }
        ],
    }
    print(json.dumps(answer), flush=True)
