"""Typed stubs of casec's native module (python/src/lib.rs)."""

from os import PathLike
from pathlib import Path
from typing import Any, Callable, Literal, Optional, TypedDict, Union

JSON = Any

class Diagnostic(TypedDict, total=False):
    code: str
    severity: Literal["error", "warning"]
    message: str
    file: Optional[str]
    line: int
    column: int
    end_line: int
    end_column: int
    start: int
    end: int
    labels: list[dict[str, Any]]
    help: Optional[str]
    fix: Optional[dict[str, Any]]
    rendered: str

class Tool(TypedDict):
    name: str
    description: str
    inputSchema: dict[str, Any]

class CheckInfo(TypedDict):
    id: str
    dimension: str
    text: str
    evidence: Optional[str]
    decided: Optional[Literal["machine", "review", "both", "unclassified"]]

# `global` is a keyword: the functional form names the key.
CriticalInfo = TypedDict(
    "CriticalInfo",
    {
        "id": str,
        "text": str,
        "global": bool,
        "decided": Optional[Literal["machine", "review", "both", "unclassified"]],
    },
)

class CaseInfo(TypedDict):
    id: str
    title: str
    category: Optional[str]
    tags: list[str]
    file: str
    has_world: bool
    followups: int
    unscripted_reply: bool
    runs_commands: bool
    has_person: bool
    checks: list[CheckInfo]
    critical_failures: list[CriticalInfo]

class RecordKeys(TypedDict):
    """The keys of a suite's result records (the shape's `layout result` requires the first four)."""

    case_id: str
    outcome: str
    checks: str
    triggered: str
    pending_review: Optional[str]
    trace: Optional[str]
    final_state: Optional[str]
    replies: Optional[str]
    model: Optional[str]
    run_id: Optional[str]

class JudgeRequest(TypedDict):
    """One review item's request to a judge, as the library builds it."""

    item: str
    kind: Literal["check", "critical_failure"]
    evidence_digest: str
    key: str
    missing: Optional[str]
    body: dict[str, Any]

class Judgement(TypedDict, total=False):
    item: str
    kind: Literal["check", "critical_failure"]
    met: Optional[bool]
    reason: str
    evidence_digest: str
    source: Literal["judge", "cache", "human"]
    author: str

class Label(TypedDict):
    item: str
    kind: Literal["check", "critical_failure"]
    expected_met: bool
    group: str

class LabelledRun(TypedDict):
    case_id: str
    run: str
    record: dict[str, JSON]
    labels: list[Label]

class Turn(TypedDict):
    role: str
    content: str

class Prompt(TypedDict):
    """A case's bundle as a chat prompt: nothing the bundle does not hold."""

    system: Optional[str]
    context: dict[str, JSON]
    conversation: list[Turn]

class FollowupRequest(TypedDict):
    followup: int
    body: dict[str, Any]

__version__: str

class CompileError(Exception):
    """A suite that does not compile (or whose bundles fail the blinding proof)."""

    diagnostics: list[Diagnostic]

class TrustError(PermissionError):
    """A suite's programs (its tools' adapters) the user has not allowed to run; nothing ran."""

def load(
    path: Union[str, PathLike[str]], *, trust: bool = False, trust_outside: bool = False
) -> Suite:
    """Compiles the suite folder at (or above) ``path``; raises CompileError on errors.
    ``trust`` lets the suite's programs run (sessions, replays, labelled runs start them);
    ``trust_outside``, with ``trust``, lets them be or reach outside the suite folder."""

def bubblewrap_arguments(root: str, program: str) -> list[str]:
    """The arguments of the ``bwrap`` command that runs a workspace job with ``root`` as the file system's root."""

def flush_workspace(root: str, files: dict[str, bytes]) -> None:
    """Makes the folder root hold exactly files, never writing through a link (casec's own exchange)."""

def read_workspace(root: str) -> dict[str, bytes]:
    """The regular files under the folder root by store path, links not followed, system folders skipped."""

def job_program() -> str:
    """The casec executable a workspace job runs (CASEC_JOB_PROGRAM, or casec on PATH); OSError otherwise."""

def parse_person_turn(content: str) -> dict[str, Any]:
    """The simulated person's turn in a model's answer (message, thought, end), failing closed: ValueError otherwise."""

def parse_verdict(content: str) -> dict[str, JSON]:
    """The verdict (``met``, ``reason``) in a judge's message text; ValueError with what is wrong otherwise (fail closed)."""

def agreement(samples: list[dict[str, JSON]]) -> dict[str, JSON]:
    """The calibration report of judged labelled samples (as ``casec calibrate --format json``, without settings)."""

class Suite:
    @property
    def name(self) -> str: ...
    @property
    def root(self) -> Path: ...
    @property
    def trust(self) -> bool:
        """Whether the suite was loaded with ``trust=True``: its programs may run."""
    @property
    def trust_outside(self) -> bool:
        """Whether the suite was loaded with ``trust_outside=True`` as well."""
    def check_trust(self, case_ids: Optional[list[str]] = None) -> None:
        """Raises TrustError when the programs of these cases (every case by default) may not run."""
    @property
    def case_ids(self) -> list[str]: ...
    @property
    def diagnostics(self) -> list[Diagnostic]:
        """The warnings the suite compiled with."""
    @property
    def outcomes(self) -> dict[Literal["passed", "failed", "undecided"], str]:
        """The suite's names of the three outcomes (Tujora: PASS, FAIL, NOT_TESTED)."""
    @property
    def record_keys(self) -> RecordKeys:
        """The result record's keys, by what they hold (None where the suite's layout has no key for it)."""
    def bundle(self, case_id: str) -> dict[str, JSON]:
        """The blinded bundle of a case (KeyError for an unknown id)."""
    def prompt(self, case_id: str) -> Prompt:
        """The case's bundle as a chat prompt: system prompt, context, conversation (raises as ``bundle`` does)."""
    def replay(
        self,
        case_id: str,
        trace: list[dict[str, JSON]],
        model: Optional[str] = None,
        run_id: Optional[str] = None,
        workspace: Optional[str] = None,
    ) -> dict[str, JSON]:
        """The result record of a trace (``Session.trace``'s events) replayed in a fresh sandbox: ``casec replay``'s; ``model`` and ``run_id`` name who made the run; with ``workspace`` (a folder a real run left), its files become the run's file store after the trace (OSError if it cannot be read); TrustError for programs the suite may not run."""
    def reward(self, record: dict[str, JSON], export: str) -> dict[str, JSON]:
        """The reward file of a result record, as the folder export ``export``'s evaluator declares it (``reward KEY VALUE``); ValueError for an unknown export or a record not of this suite."""
    def case(self, case_id: str) -> CaseInfo:
        """Evaluator-side facts of a case: category, follow-ups, checks and critical failures."""
    def workspace_files(self, case_id: str) -> dict[str, bytes]:
        """The files a case's world seeds in its workspace, by path."""
    def compose_yaml(self) -> Optional[str]:
        """The Docker Compose file (YAML) for Inspect's docker sandbox when the suite's tools run workspace commands, else None."""
    def session(
        self, case_id: str, model: Optional[str] = None, run_id: Optional[str] = None
    ) -> Session:
        """A fresh sandbox of a case (KeyError for an unknown id, ValueError without a world, TrustError for programs the suite may not run); ``model`` and ``run_id`` name who makes the run, for its record."""
    def judge_requests(
        self, record: dict[str, JSON], model: str = "judge", seed: int = 0
    ) -> list[JudgeRequest]:
        """One chat-completions request per review item of a result record (``casec judge``'s prompts)."""
    def judged(
        self,
        record: dict[str, JSON],
        judgements: list[Judgement],
        model: str = "judge",
        seed: int = 0,
    ) -> dict[str, JSON]:
        """The record with the judgements written in, its outcome recomputed and a ``judgements`` key."""
    def labelled_runs(self) -> list[LabelledRun]:
        """Golden traces and labelled counter-examples, replayed, with the verdict each label expects (TrustError for programs the suite may not run)."""

class Session:
    @property
    def case_id(self) -> str: ...
    @property
    def tools(self) -> list[Tool]:
        """The case's tools exactly as ``casec serve`` lists them for MCP ``tools/list``."""
    def set_executor(
        self,
        executor: Callable[
            [dict[str, JSON], dict[str, bytes], list[str]],
            tuple[dict[str, JSON], dict[str, bytes]],
        ],
    ) -> None:
        """Runs the session's workspace commands with ``executor(job, files, folders) -> (outcome, files)`` (casec.workspace.SandboxExecutor)."""
    def call(self, name: str, arguments: Optional[dict[str, JSON]] = None) -> dict[str, JSON]:
        """Runs a tool call; the tool's result (``status``: ok, not_found or error). Waits for a suite's program with the GIL released."""
    def ask(self, question: str, followup: Optional[int] = None) -> str:
        """A clarifying question: the scripted follow-up's reply (the given one, else the next unasked), else the unscripted reply."""
    def question(self, question: str) -> str:
        """An unscripted question: the case's unscripted reply."""
    def followup_requests(
        self, question: str, model: str = "judge", seed: int = 0
    ) -> list[FollowupRequest]:
        """Requests asking whether ``question`` is a scripted follow-up not asked yet, in order."""
    def reply(self, text: str) -> None:
        """Records the assistant's reply."""
    def user(self, text: str, thought: Optional[str] = None) -> None:
        """Records a user turn, with a simulated person's private thought."""
    def person_request(self, model: str = "person", seed: int = 0) -> dict[str, JSON]:
        """The request for the simulated person's next turn (a chat-completions body): the person's fields and the conversation, nothing else."""
    def end_conversation(
        self, reason: str, satisfaction: Optional[int] = None, verdict: Optional[str] = None
    ) -> None:
        """Records how the conversation ended (goal_met, refused, transferred, out_of_scope, gave_up, turn_limit); ValueError otherwise."""
    def result_record(self) -> dict[str, JSON]:
        """The result record so far, without ending the session."""
    def end(self) -> dict[str, JSON]:
        """Ends the session; its result record. Later calls raise RuntimeError."""
    @property
    def ended(self) -> bool: ...
    @property
    def trace(self) -> list[dict[str, JSON]]:
        """The events so far, as lines of a trace file."""
