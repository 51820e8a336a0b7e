"""Workspace commands under Inspect (casec.workspace): samples of a suite whose tools
run commands carry their sandbox and their world's files, and the executor keeps a
container in step with the session's file store.

The `local` sandbox runs for real in test_inspect.py (every suite under cases/, the
golden traces of cases/dumate running their scripts under bubblewrap). A container
cannot run here, so the `docker` path is driven against a stand-in sandbox that keeps
files in memory and answers the job program's protocol.
"""

import base64
import json
import os
import subprocess
from pathlib import Path
from typing import Any, Optional

import anyio
import pytest
import yaml
from conftest import REPO

import casec
from casec.harness import case_samples
from casec.workspace import CONTAINER_PROGRAM, READ_BACK_SCRIPT, SandboxExecutor, sample_files

DUMATE = REPO / "cases" / "dumate"


class Done:
    def __init__(self, stdout: str = "", returncode: int = 0) -> None:
        self.stdout, self.stderr, self.returncode, self.success = stdout, "", returncode, True


class Container:
    """A stand-in for a container sandbox: absolute paths, files in memory; the job
    program writes /outputs/done.txt and reports a request."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.calls: list[Any] = []

    async def write_file(self, path: str, contents: bytes) -> None:
        self.calls.append(("write", path))
        self.files[path] = contents

    async def read_file(self, path: str, text: bool = True) -> bytes:
        self.calls.append(("read", path))
        return self.files[path]

    async def exec(
        self, cmd: list[str], input: Optional[str] = None, timeout: Optional[int] = None
    ) -> Done:
        self.calls.append(("exec", cmd[0]))
        if cmd[0] == "rm":
            for path in cmd[3:]:
                self.files.pop(path, None)
            return Done()
        if cmd[0] == CONTAINER_PROGRAM:
            job = json.loads(input or "{}")
            self.files["/outputs/done.txt"] = job["command"].encode()
            outcome = {
                "exit_code": 0,
                "timed_out": False,
                "not_started": None,
                "stdout": "ok",
                "stderr": "",
                "stdout_bytes": 2,
                "stderr_bytes": 0,
                "requests": [],
                "web": None,
            }
            return Done(json.dumps(outcome))
        if cmd[0] == "sh":
            folders = cmd[4:]
            found = [p for p in self.files if any(p.startswith(f + "/") for f in folders)]
            return Done("".join(p + "\0" for p in found))
        return Done()


def test_a_container_gets_the_program_once_the_store_in_step_and_gives_its_files_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = tmp_path / "casec"
    program.write_bytes(b"\x7fELF stand-in")
    monkeypatch.setenv("CASEC_JOB_PROGRAM", str(program))
    container = Container()
    seeded = {"/workspace/in.txt": b"a\n"}
    container.files.update(seeded)
    executor = SandboxExecutor(container, "docker", seeded)  # type: ignore[arg-type]
    job = {"command": "make", "directory": "/", "limits": {"timeout_seconds": 5}, "web": None}
    store = {"/workspace/in.txt": b"a\n", "/workspace/new.txt": b"b\n"}
    outcome, after = anyio.run(executor.run, job, store, ["/outputs", "/workspace"])
    assert outcome["stdout"] == "ok"
    assert after == {**store, "/outputs/done.txt": b"make"}
    # The unchanged seed was not written again; the program went in once, executable.
    writes = [c[1] for c in container.calls if c[0] == "write"]
    assert writes == ["/workspace/new.txt", CONTAINER_PROGRAM]
    assert container.files[CONTAINER_PROGRAM] == b"\x7fELF stand-in"
    # A file the store drops is removed from the container; the program is not sent again.
    container.calls.clear()
    anyio.run(executor.run, job, {"/workspace/in.txt": b"a\n"}, ["/workspace"])
    assert "/workspace/new.txt" not in container.files
    assert ("write", CONTAINER_PROGRAM) not in container.calls


def test_samples_of_cases_that_run_commands_carry_their_sandbox_and_files() -> None:
    suite = casec.load(DUMATE)
    case_id = "task_7"
    (local,) = case_samples(suite, [case_id])
    assert local.sandbox is not None and local.sandbox.type == "local"
    files = local.files or {}
    seeded = suite.workspace_files(case_id)
    assert set(files) == {p.lstrip("/") for p in seeded}
    for path, data in seeded.items():
        uri = files[path.lstrip("/")]
        assert base64.b64decode(uri.split(",", 1)[1]) == data
    (docker,) = case_samples(suite, [case_id], sandbox="docker")
    assert docker.sandbox is not None and docker.sandbox.type == "docker"
    compose = yaml.safe_load(Path(str(docker.sandbox.config)).read_text())
    service = compose["services"]["default"]
    assert service["network_mode"] == "none" and service["image"]
    assert set(docker.files or {}) == set(seeded)
    with pytest.raises(ValueError, match="sandbox must be one of"):
        case_samples(suite, [case_id], sandbox="podman")


def test_a_case_without_commands_has_no_sandbox() -> None:
    suite = casec.load(REPO / "cases" / "tujora")
    (sample,) = case_samples(suite, [suite.case_ids[0]])
    assert sample.sandbox is None and not sample.files


def test_sample_files_are_data_uris_relative_only_for_the_local_sandbox() -> None:
    files = {"/outputs/a.bin": b"\x00\xff"}
    assert sample_files(files, "local") == {
        "outputs/a.bin": "data:application/octet-stream;base64,AP8="
    }
    assert list(sample_files(files, "docker")) == ["/outputs/a.bin"]


def _compose_config() -> Optional[list[str]]:
    """A command that validates a Compose file without a Docker daemon: `docker compose
    config` (the plugin) or `docker-compose config` (Debian's docker-compose), if any."""
    import shutil
    import subprocess

    docker = shutil.which("docker")
    if (
        docker
        and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0
    ):
        return [docker, "compose"]
    standalone = shutil.which("docker-compose")
    return [standalone] if standalone else None


def test_the_generated_compose_file_follows_the_compose_specification(tmp_path: Path) -> None:
    """`Suite.compose_yaml()` read back as YAML is a valid Compose file: checked against
    the Compose specification's JSON Schema (tests/data/compose_spec.json, from
    docker-compose 1.29.2, Apache-2.0), and by `docker compose config` where a Compose
    is installed (CI installs Debian's docker-compose)."""
    import subprocess

    import jsonschema

    text = casec.load(DUMATE).compose_yaml()
    assert text is not None
    compose = yaml.safe_load(text)
    schema = json.loads((REPO / "tests" / "data" / "compose_spec.json").read_text())
    jsonschema.Draft201909Validator(schema).validate(compose)
    service = compose["services"]["default"]
    assert service["command"] == ["tail", "-f", "/dev/null"]
    assert service["mem_limit"] == "2048m"
    # A suite without commands has none.
    assert casec.load(REPO / "cases" / "tujora").compose_yaml() is None
    tool = _compose_config()
    if tool is None:
        assert not os.environ.get("CI"), "CI installs docker-compose to validate the file"
        return
    path = tmp_path / "compose.yaml"
    path.write_text(text)
    checked = subprocess.run(
        [*tool, "-f", str(path), "config", "--quiet"], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr


def test_the_read_back_lists_files_in_folders_and_files_named_alone(tmp_path: Path) -> None:
    """What a container's read-back lists, run by a real `sh`: the files under each
    folder, a top-level file named alone, never a symbolic link or a missing path."""
    (tmp_path / "outputs" / "deep").mkdir(parents=True)
    (tmp_path / "outputs" / "deep" / "a.txt").write_text("a")
    (tmp_path / "report.txt").write_text("r")
    (tmp_path / "elsewhere.txt").write_text("e")
    (tmp_path / "link.txt").symlink_to(tmp_path / "elsewhere.txt")
    (tmp_path / "outputs" / "link.txt").symlink_to(tmp_path / "elsewhere.txt")
    targets = ["outputs", "report.txt", "link.txt", "missing"]
    listed = subprocess.run(
        ["sh", "-c", READ_BACK_SCRIPT, "sh", *targets],
        cwd=tmp_path,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    assert sorted(p for p in listed if p) == [b"outputs/deep/a.txt", b"report.txt"]
