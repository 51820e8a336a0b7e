#!/usr/bin/env python3
"""A tool adapter for casec's tests, speaking the adapter protocol (docs/tools.md).

One JSON request per line on standard input, one JSON answer per line on standard
output. `note_add` creates a note whose text is the argument upper-cased (so a test
can tell the adapter ran) and answers how many notes the collection held; `note_fail`
answers an error; `note_bad` asks for a change it may not make; `note_half` updates
the first note, then creates a note without its required text (so casec must undo the
update); `note_slow` answers only after 3 seconds, longer than its adapter waits;
`note_list` shows every note (`shown`), and `note_ghost` a note that does not exist.
"""

import json
import sys
import time


def answer(request):
    tool = request["tool"]
    notes = request["collections"].get("notes", [])
    if tool == "note_add":
        text = request["arguments"]["text"]
        return {
            "result": {"notes_before": len(notes), "clock": request["clock"]["current_time"]},
            "changes": [{"create": "notes", "fields": {"text": text.upper()}}],
        }
    if tool == "note_fail":
        return {"error": "NOTES_OFFLINE", "message": "the note service is down"}
    if tool == "note_bad":
        return {"result": {}, "changes": [{"create": "contacts", "fields": {"name": "X"}}]}
    if tool == "note_half":
        return {
            "result": {},
            "changes": [
                {"update": notes[0]["id"], "fields": {"text": "TIDIED"}},
                {"create": "notes", "fields": {}},
            ],
        }
    if tool == "note_list":
        return {"result": {"notes": notes}, "shown": [n["id"] for n in notes]}
    if tool == "note_ghost":
        return {"result": {}, "shown": ["N99"]}
    if tool == "note_slow":
        time.sleep(3)
        return {"result": {}}
    return {"error": "UNKNOWN", "message": tool}


for line in sys.stdin:
    if line.strip():
        print(json.dumps(answer(json.loads(line))), flush=True)
