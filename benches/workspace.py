"""Workspace start benchmark: a fresh workspace and one trivial command (`true`), from
start to result, by each backend a suite's workspace commands can run on:

* ``casec``: casec's own isolated workspace (a session of a case that runs commands,
  one ``run_command`` call: the folder made, the store written to it, bubblewrap and
  the job program started, the workspace read back), as ``casec verify`` runs it;
* ``inspect local``: Inspect's ``local`` sandbox, made, one ``exec(["true"])``, cleaned
  up: what Inspect itself costs, with no isolation;
* ``inspect local + casec``: the same sandbox running the command as the Inspect task
  does (``casec.workspace.SandboxExecutor``: casec's job under bubblewrap in it);
* ``inspect docker``: Inspect's ``docker`` sandbox, where a Docker daemon answers.

Run with ``python benches/workspace.py [ROUNDS]`` (default 30) from the repository, in
an environment with the casec package and Inspect installed and the casec binary as
``CASEC_JOB_PROGRAM`` (or on ``PATH``). Prints the median and the 10th and 90th
percentiles of each, in milliseconds. The figures in docs/performance.md came from it.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

import casec
from casec.workspace import SandboxExecutor

SUITE = """suite "Bench" {
  system_prompt "Work."
  world_schema std.workspace_world
  tools read_file run_command
}
case B-1 "Run" {
  user "Run."
  goal "Ran."
  world {
    files F1 {
      path "/workspace/in.txt"
      content "a"
    }
  }
  review G1
}
"""


def suite() -> casec.Suite:
    folder = Path(tempfile.mkdtemp(prefix="casec-bench-"))
    (folder / "suite.case").write_text(SUITE)
    return casec.load(folder)


def casec_own(loaded: casec.Suite) -> Callable[[], Awaitable[None]]:
    async def once() -> None:
        session = loaded.session("B-1")
        result = await asyncio.to_thread(session.call, "run_command", {"command": "true"})
        assert result["status"] == "ok", result

    return once


def inspect_sandbox(kind: str, with_casec: bool) -> Callable[[], Awaitable[None]]:
    from inspect_ai.util._sandbox.registry import registry_find_sandboxenv

    environment: Any = registry_find_sandboxenv(kind)

    async def once() -> None:
        envs = await environment.sample_init("bench", None, {})
        env = envs["default"]
        try:
            if with_casec:
                executor = SandboxExecutor(env, kind, {})
                job = {
                    "command": "true",
                    "directory": "/",
                    "limits": {"timeout_seconds": 60, "memory_mib": 2048, "output_kib": 64},
                    "web": None,
                }
                outcome, _ = await executor.run(job, {"/workspace/in.txt": b"a"}, ["/workspace"])
                assert outcome["exit_code"] == 0, outcome
            else:
                done = await env.exec(["true"])
                assert done.success
        finally:
            await environment.sample_cleanup("bench", None, envs, False)

    return once


async def measure(once: Callable[[], Awaitable[None]], rounds: int) -> list[float]:
    await once()  # warm: imports, page cache
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        await once()
        times.append((time.perf_counter() - started) * 1000)
    return times


def summary(times: list[float]) -> str:
    deciles = statistics.quantiles(times, n=10)
    return f"median {statistics.median(times):7.1f} ms   p10 {deciles[0]:7.1f}   p90 {deciles[-1]:7.1f}"


async def main(rounds: int) -> None:
    loaded = suite()
    backends: list[tuple[str, Callable[[], Awaitable[None]]]] = [
        ("casec", casec_own(loaded)),
        ("inspect local", inspect_sandbox("local", False)),
        ("inspect local + casec", inspect_sandbox("local", True)),
    ]
    for name, once in backends:
        print(f"{name:24} {summary(await measure(once, rounds))}")
    try:
        docker = inspect_sandbox("docker", False)
        print(f"{'inspect docker':24} {summary(await measure(docker, rounds))}")
    except Exception as error:  # noqa: BLE001 - no daemon: say so and stop
        print(f"{'inspect docker':24} not run: {str(error).splitlines()[0][:100]}")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 30))
