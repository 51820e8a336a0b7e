#!/bin/sh
# Seeds the fuzz corpora from the repository (docs/reliability.md): the .case files of
# cases/, stdlib/ and the tests for check and fmt, master JSON for import, traces for replay (with
# a first byte that picks the Tujora case the trace is replayed against).
set -eu
cd "$(dirname "$0")"
mkdir -p corpus/check corpus/fmt corpus/import corpus/replay
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
