"""casec in Python: compile ``.case`` benchmark suites and drive case sandboxes in-process.

>>> import casec
>>> suite = casec.load("cases/tujora")
>>> session = suite.session("TUJ-011")
>>> session.call("get_clock", {})["status"]
'ok'
>>> session.reply("Done.")
>>> session.end()["outcome"]
'FAIL'

A suite whose tools run programs of its own (adapters) runs them only when loaded with
``casec.load(path, trust=True)``: they run as you (docs/security.md).

The Inspect AI task ``casec/suite`` and the smoke models ``casec/golden`` and
``casec/idle`` live in :mod:`casec.inspect` (they need ``inspect-ai``); see docs/python.md.
"""

from ._casec import (
    CompileError,
    Session,
    Suite,
    TrustError,
    __version__,
    agreement,
    load,
    parse_person_turn,
    parse_verdict,
)

__all__ = [
    "CompileError",
    "Session",
    "Suite",
    "TrustError",
    "__version__",
    "agreement",
    "load",
    "parse_person_turn",
    "parse_verdict",
]
