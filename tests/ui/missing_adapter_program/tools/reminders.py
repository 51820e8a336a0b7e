#!/usr/bin/env python3
"""The adapter this UI test keeps in its folder (so `casec check` finds it): answers
every call with an empty result; the test never runs it."""

import json
import sys

for line in sys.stdin:
    if line.strip():
        print(json.dumps({"result": {}}), flush=True)
