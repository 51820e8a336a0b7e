"""``python -m casec eval SUITE… --model M``: runs suites as the Inspect task
``casec/suite`` and fails when a run did not complete.

``inspect eval`` exits 0 even when its log ends in status ``error`` (a sample raised, a
tool schema was refused), so a CI job built on it passes on a broken run. This runner
reads every log it wrote and exits 1, printing each log's error, unless every log ended
in ``success``; then it prints each suite's pass rate. See docs/python.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Optional

USAGE_ERROR = 2


def _pairs(values: list[str], what: str) -> dict[str, str]:
    """``k=v`` arguments as a dict; a malformed one is a usage error."""
    out: dict[str, str] = {}
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep or not key:
            raise SystemExit(f"casec eval: {what} must be KEY=VALUE, not `{value}`")
        out[key] = rest
    return out


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m casec", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("eval", help="run suites under Inspect; exit 1 on any errored log")
    run.add_argument("suites", nargs="+", type=Path, help="suite folders")
    run.add_argument("--model", required=True, help="the model under test, e.g. casec/golden")
    run.add_argument(
        "--model-role",
        action="append",
        default=[],
        metavar="ROLE=MODEL",
        help="a model role, e.g. grader=casec/golden (repeatable)",
    )
    run.add_argument(
        "-T",
        dest="task_args",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a task argument of casec/suite (repeatable), e.g. cases=TUJ-011",
    )
    run.add_argument("--solver", help="a registered solver or agent, e.g. casec/react")
    run.add_argument("--log-dir", default="logs", help="where the logs go (default: logs)")
    return parser


def run_suites(
    suites: list[Path],
    model: str,
    model_roles: dict[str, str],
    task_args: dict[str, str],
    solver: Optional[str],
    log_dir: str,
) -> int:
    """Runs each suite; 0 when every log ended in success, else 1."""
    import inspect_ai
    from inspect_ai.solver import SolverSpec

    failures = 0
    for suite in suites:
        args: dict[str, Any] = {**task_args, "path": str(suite)}
        logs = inspect_ai.eval(
            "casec/suite",
            task_args=args,
            model=model,
            model_roles=dict(model_roles) or None,
            solver=SolverSpec(solver) if solver else None,
            log_dir=log_dir,
            display="none",
        )
        for log in logs:
            if log.status != "success":
                failures += 1
                error = log.error.message if log.error else f"status {log.status}"
                print(f"{suite}: the run ended in {log.status}: {error}", file=sys.stderr)
                print(f"  log: {log.location}", file=sys.stderr)
                continue
            metrics = {
                name: m.value
                for score in (log.results.scores if log.results else [])
                for name, m in score.metrics.items()
            }
            rate = metrics.get("pass_rate")
            shown = f"{rate:.3f}" if isinstance(rate, float) else "n/a"
            print(f"{suite}: {len(log.samples or [])} samples, pass_rate {shown} ({log.location})")
    return 1 if failures else 0


def main(argv: Optional[list[str]] = None) -> int:
    options = _parser().parse_args(argv)
    try:
        roles = _pairs(options.model_role, "--model-role")
        task_args = _pairs(options.task_args, "-T")
    except SystemExit as usage:
        print(usage, file=sys.stderr)
        return USAGE_ERROR
    missing = [s for s in options.suites if not s.exists()]
    if missing:
        print(f"casec eval: no such suite: {', '.join(map(str, missing))}", file=sys.stderr)
        return USAGE_ERROR
    return run_suites(
        options.suites, options.model, roles, task_args, options.solver, options.log_dir
    )


if __name__ == "__main__":
    sys.exit(main())
