"""Workspace commands under Inspect: a case whose tools run shell commands (the
``commands.run`` service, ``std.workspace_world``'s ``run_command``) runs them in the
sample's Inspect sandbox.

casec keeps the session: the trace, the file store, the injected failures, the
grading. For each command it hands :class:`SandboxExecutor` a *job* (the command, its
working directory, its limits, the endpoints it may reach) with the store's files; the
executor makes the sandbox hold exactly those files, runs the job there with casec's
job program (``casec workspace-job``: it serves the endpoints on the sandbox's own
loopback, with their declared faults, runs ``/bin/sh -c`` under the limits and reports
the requests), and reads the workspace's files back, which become the store's.

* In Inspect's ``docker`` sandbox (and its Kubernetes one) the container is the
  isolation: the job program is copied into it and run there. The container needs
  no network (the generated ``compose.yaml`` gives it none) and a glibc-based image.
* In Inspect's ``local`` sandbox, which isolates nothing and cannot map ``/workspace``,
  the executor runs the job program under bubblewrap itself, the sample's folder as
  the root of the file system: the same isolation ``casec verify`` uses. That folder is
  on this machine, so it is written and read back by casec itself (never through a
  link a command left, links not followed), exactly as ``casec verify`` does.

The job program is the ``casec`` executable (``CASEC_JOB_PROGRAM``, or ``casec`` on
``PATH``). See docs/python.md ("Workspace commands").
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import anyio
from inspect_ai.util import SandboxEnvironment

from ._casec import bubblewrap_arguments, flush_workspace, job_program, read_workspace

#: Where the job program is put inside a container.
CONTAINER_PROGRAM = "/run/casec/casec"

#: How long past a command's own time limit the sandbox may take.
GRACE_SECONDS = 10

#: The sandbox kinds the task accepts (``-T sandbox=…``).
SANDBOXES = ("local", "docker")


#: Lists, NUL-separated, the regular files under each folder given and each given path
#: that is a regular file; symbolic links are neither followed nor listed.
READ_BACK_SCRIPT = (
    'for f in "$@"; do if [ -L "$f" ]; then :; elif [ -d "$f" ]; then find "$f" -type f -print0;'
    ' elif [ -f "$f" ]; then printf "%s\\0" "$f"; fi; done; true'
)


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def sample_files(files: dict[str, bytes], kind: str) -> dict[str, str]:
    """A case's seeded files as an Inspect sample's ``files``: relative to the
    sandbox's folder in the ``local`` sandbox (its folder stands for ``/``), absolute
    in a container; every content a ``data:`` URI, so binary files arrive intact."""
    out = {}
    for path, data in files.items():
        target = path.lstrip("/") if kind == "local" else path
        out[target] = "data:application/octet-stream;base64," + base64.b64encode(data).decode()
    return out


class SandboxExecutor:
    """Runs a session's jobs in one sample's sandbox (see the module's docs). Called by
    the native session from the worker thread of a tool call; it runs its sandbox calls
    on the event loop (``anyio.from_thread``)."""

    def __init__(self, env: SandboxEnvironment, kind: str, seeded: dict[str, bytes]) -> None:
        if kind not in SANDBOXES:
            raise ValueError(f"sandbox must be one of {', '.join(SANDBOXES)}, not `{kind}`")
        self.env = env
        self.kind = kind
        #: What the sandbox holds, by store path: a digest of each file's bytes.
        self.held = {path: _digest(data) for path, data in seeded.items()}
        self.program = job_program()
        self.installed = False
        self.root: str | None = None

    def __call__(
        self, job: dict[str, Any], files: dict[str, bytes], folders: list[str]
    ) -> tuple[dict[str, Any], dict[str, bytes]]:
        result: tuple[dict[str, Any], dict[str, bytes]] = anyio.from_thread.run(
            self.run, job, files, folders
        )
        return result

    def _at(self, path: str) -> str:
        """Where a store path is for the sandbox's file calls."""
        return path.lstrip("/") if self.kind == "local" else path

    def _store_path(self, found: str) -> str:
        if self.kind != "local":
            return found
        return "/" + (found[2:] if found.startswith("./") else found)

    async def run(
        self, job: dict[str, Any], files: dict[str, bytes], folders: list[str]
    ) -> tuple[dict[str, Any], dict[str, bytes]]:
        if self.kind == "local":
            flush_workspace(await self._root(), files)
        else:
            await self._sync(files)
        self.held = {path: _digest(data) for path, data in files.items()}
        argv = await self._job_command()
        timeout = int(job["limits"]["timeout_seconds"]) + GRACE_SECONDS
        done = await self.env.exec(argv, input=json.dumps(job), timeout=timeout)
        try:
            outcome = json.loads(done.stdout)
        except ValueError:
            raise RuntimeError(
                f"the job program gave no outcome (exit {done.returncode}): {done.stderr.strip()}"
            ) from None
        if self.kind == "local":
            after = read_workspace(await self._root())
        else:
            after = await self._read_back(folders)
        self.held = {path: _digest(data) for path, data in after.items()}
        return outcome, after

    async def _root(self) -> str:
        """The local sandbox's folder, which stands for the root of the file system."""
        if self.root is None:
            self.root = (await self.env.exec(["pwd"])).stdout.strip()
        return self.root

    async def _sync(self, files: dict[str, bytes]) -> None:
        """Makes a container hold exactly ``files``."""
        for path, data in files.items():
            if self.held.get(path) != _digest(data):
                await self.env.write_file(self._at(path), data)
        gone = [self._at(path) for path in self.held if path not in files]
        if gone:
            await self.env.exec(["rm", "-f", "--", *gone])

    async def _job_command(self) -> list[str]:
        if self.kind == "local":
            return ["bwrap", *bubblewrap_arguments(await self._root(), self.program)]
        if not self.installed:
            await self.env.write_file(CONTAINER_PROGRAM, Path(self.program).read_bytes())
            await self.env.exec(["chmod", "755", CONTAINER_PROGRAM])
            self.installed = True
        return [CONTAINER_PROGRAM, "workspace-job"]

    async def _read_back(self, folders: list[str]) -> dict[str, bytes]:
        """The regular files under a container's workspace folders, and those that are
        files themselves (a top-level `/report.txt` an expectation names); links are not
        followed."""
        targets = [self._at(folder) for folder in folders]
        listed = await self.env.exec(["sh", "-c", READ_BACK_SCRIPT, "sh", *targets])
        after = {}
        for found in listed.stdout.split("\0"):
            if found:
                after[self._store_path(found)] = await self.env.read_file(found, text=False)
        return after
