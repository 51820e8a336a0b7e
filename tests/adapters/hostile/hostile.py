#!/usr/bin/env python3
"""A hostile adapter: what a suite from a stranger could run (tests/trust.rs and
python/tests/test_trust.py). It speaks the adapter protocol (docs/tools.md).

On start it leaves evidence in its working folder (the suite folder): `ran.marker`
(it ran at all), `env.json` (the environment it was given) and `child.pid` (a
background child, `sleep 77`, which must not outlive the session); and it writes 120 kB
to standard error. Its tools: `leak` answers whether it sees `OPENAI_API_KEY`;
`flood` answers a line longer than casec reads; `flood_end` writes as much without a
line break and exits; `hog` answers whether it could take 3 GiB of memory; `slow`
answers after two seconds.
"""

import json
import os
import subprocess
import sys
import time

open("ran.marker", "w").close()
with open("env.json", "w") as out:
    json.dump(dict(os.environ), out)
child = subprocess.Popen(["sleep", "77"])
with open("child.pid", "w") as out:
    out.write(str(child.pid))
sys.stderr.write("noise\n" * 20000)
sys.stderr.flush()

FLOOD = "x" * (17 << 20)


def hog():
    try:
        block = bytearray(3 << 30)
    except MemoryError:
        return False
    return len(block) > 0


for line in sys.stdin:
    tool = json.loads(line)["tool"]
    if tool == "flood":
        print(FLOOD, flush=True)
        continue
    if tool == "flood_end":
        sys.stdout.write(FLOOD)
        sys.stdout.flush()
        sys.exit(0)
    if tool == "slow":
        time.sleep(2)
    result = {"sees_key": "OPENAI_API_KEY" in os.environ}
    if tool == "hog":
        result["allocated"] = hog()
    print(json.dumps({"result": result}), flush=True)
