#!/bin/sh
# Seeds the fuzz corpora from the repository (docs/reliability.md): the .case files of
# cases/, stdlib/ and the tests for check and fmt, master JSON for import, traces for replay (with
# a first byte that picks the Tujora case the trace is replayed against).
set -eu
cd "$(dirname "$0")"
mkdir -p corpus/check corpus/fmt corpus/import corpus/replay corpus/jsonrpc corpus/judge_response corpus/adapter_answer
for f in $(find ../cases ../stdlib ../tests/ui ../tests/fmt ../tests/build -name '*.case'); do
  name=$(echo "$f" | tr '/.' '__')
  cp "$f" "corpus/check/$name"
  cp "$f" "corpus/fmt/$name"
done
for f in ../tests/data/*.json ../tests/ui/*.master.json; do
  cp "$f" "corpus/import/$(echo "$f" | tr '/.' '__')"
done
i=0
for f in $(find ../cases -name '*.trace.jsonl') ../tests/ui/*.trace.jsonl; do
  { printf "\\$(printf '%03o' $((i % 256)))"; cat "$f"; } > "corpus/replay/$(echo "$f" | tr '/.' '__')"
  i=$((i + 1))
done
# Inputs the repository has none of: nesting at and past the limit, a byte order mark,
# invisible characters, a long token.
python3 - <<'PY'
deep = lambda n: "a " + "[" * n + "]" * n + "\n"
seeds = {
    "nesting_256": deep(254),
    "nesting_257": deep(255),
    "blocks_300": "a {\n" * 300 + "}\n" * 300,
    "bom": "\ufeffcase X \"t\" {\n  user \"hi\"\n}\n",
    "invisible": "case X \"t\" {\n  user \"cl\u200baim\"\n}\n\u200b",
    "long_token": "case " + "x" * 100_000 + " \"t\" {}\n",
}
for name, text in seeds.items():
    for target in ("check", "fmt"):
        with open(f"corpus/{target}/{name}", "w", encoding="utf-8") as f:
            f.write(text)
PY
# The protocol targets: a served session's messages (a first byte picks the case), judge
# answers, and adapter answers (fuzz/data/adapter.case).
python3 - <<'PY'
import json
init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "0"}}}
lines = [
    init,
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_clock", "arguments": {}}},
    {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "read_records", "arguments": {"collection": "reminders", "query": "evening"}}},
    {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "write_record", "arguments": None}},
    {"jsonrpc": "2.0", "id": 6, "method": "ping"},
]
session = "\n".join(json.dumps(l) for l in lines) + "\n"
seeds = {
    "session": "\x00" + session,
    "batch": "\x01" + json.dumps(lines[:3]) + "\n",
    "odd": "\x02" + '{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}\n{"id":1,"id":2}\n' + "[" * 200 + "\n",
}
for name, text in seeds.items():
    with open(f"corpus/jsonrpc/{name}", "w", encoding="utf-8") as f:
        f.write(text)
def response(content, **extra):
    choice = {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
    choice.update(extra)
    return json.dumps({"choices": [choice]})
judge = {
    "met": response('{"met": true, "reason": "done"}'),
    "fenced": response('```json\n{"met": false, "reason": "no"}\n```'),
    "twice": response('{"met": true, "met": false, "reason": "x"}'),
    "refusal": json.dumps({"choices": [{"message": {"refusal": "no"}}]}),
    "content": '{"met": true, "reason": "plain content"}',
}
for name, text in judge.items():
    with open(f"corpus/judge_response/{name}", "w", encoding="utf-8") as f:
        f.write(text)
adapter = {
    "result": {"result": {"note": "N2"}},
    "create": {"result": {}, "changes": [{"create": "notes", "fields": {"text": "Call Sam", "stars": 3, "about": "CT1", "due": "2026-11-10T09:00:00-05:00"}}]},
    "update": {"changes": [{"update": "N1", "fields": {"text": "Buy oat milk", "stars": None}}]},
    "delete": {"changes": [{"delete": "N1"}]},
    "forbidden": {"changes": [{"delete": "CT1"}]},
    "error": {"error": "NOT_FOUND", "message": "no such note"},
    "half": {"changes": [{"update": "N1", "fields": {"text": "x"}}, {"create": "notes", "fields": {}}]},
}
for name, answer in adapter.items():
    with open(f"corpus/adapter_answer/{name}", "w", encoding="utf-8") as f:
        f.write(json.dumps(answer))
PY
