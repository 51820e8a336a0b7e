"""`casec report --html` in a real browser: Debian's Chromium, headless, driven by
Playwright.

The records are made as a harness makes them, with the casec binary: golden traces of
Tujora's medication cases judged by a local fake judge (passes, and one check it finds
not met), golden traces of the appointment cases left undecided, and do-nothing traces
of the belongings cases (failures, some with critical failures). The page must load
without a console error or a failed request (it is self-contained: nothing is fetched),
show the pass rate the records give, draw its charts and show a failed check's text.

Run after `cargo build`: `python -m pytest tests/python`; the binary is `$CASEC`, else
`target/debug/casec`; the browser is `$CHROMIUM`, else `/usr/bin/chromium` (Debian's
`chromium` package; Playwright's own browser downloads are never used). Without
Playwright or the browser the test is skipped, except in CI (`CI` set), which installs
both (.ci/run).
"""

import json
import math
import os
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASEC = os.environ.get("CASEC", str(ROOT / "target" / "debug" / "casec"))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SUITE = ROOT / "cases" / "tujora"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# The one check the fake judge finds not met, and its reason.
UNMET = ("TUJ-003", "R1")
UNMET_REASON = "The reply never says that the existing 20:00 schedule is reused."

# CI installs both (.ci/run): there a missing one is a failure, not a skip.
if os.environ.get("CI"):
    from playwright import sync_api

    assert Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM}"
else:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}", allow_module_level=True)


def casec(*args):
    return subprocess.run(
        [CASEC, *map(str, args)], cwd=ROOT, capture_output=True, text=True, check=True
    )


class FakeJudge(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat-completions endpoint: every check met and no critical
    failure committed, except the UNMET check."""

    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        first = body["messages"][1]["content"].splitlines()[0]
        header = json.loads(first.removeprefix("casec judge request "))
        if (header["case"], header["item"]) == UNMET:
            verdict = {"met": False, "reason": UNMET_REASON}
        else:
            verdict = {"met": header["kind"] == "check", "reason": "as the golden run does"}
        message = {"role": "assistant", "content": json.dumps(verdict)}
        answer = json.dumps(
            {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def case_files(category):
    return sorted(p for p in (SUITE / category).glob("*.case"))


def golden(case):
    return case.with_name(case.stem + ".trace.jsonl")


def make_records(tmp_path):
    """Result records of 55 runs, in three folders; the paths of every record."""
    runs, judged = tmp_path / "runs", tmp_path / "judged"
    runs.mkdir()
    idle = tmp_path / "idle.trace.jsonl"
    idle.write_text("")
    medication = []
    for case in case_files("medication"):
        out = tmp_path / f"{case.stem}.json"
        casec("replay", case.stem, "--trace", golden(case), SUITE, "-o", out)
        medication.append(out)
    for case in case_files("appointments"):
        casec("replay", case.stem, "--trace", golden(case), SUITE, "-o", runs / f"{case.stem}.json")
    for case in case_files("belongings"):
        casec("replay", case.stem, "--trace", idle, SUITE, "-o", runs / f"{case.stem}-idle.json")
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeJudge)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        host, port = server.server_address
        casec(
            "judge", *medication, "--suite", SUITE,
            "--endpoint", f"http://{host}:{port}/v1", "--model", "fake-judge",
            "-o", judged,
        )
    finally:
        server.shutdown()
    return sorted(runs.iterdir()) + sorted(judged.iterdir())


def expected_pass_rate(records):
    """The suite's rule: 100 × passed / every case of the suite, one decimal."""
    outcomes = [json.loads(p.read_text())["outcome"] for p in records]
    cases = sum(1 for p in SUITE.glob("*/*.case"))
    rate = math.floor(1000 * outcomes.count("PASS") / cases + 0.5) / 10
    return f"{rate:.1f}%", outcomes


def a_failed_check(records):
    """A check a record failed, with its requirement from the built master."""
    master = json.loads(casec("build", SUITE).stdout)
    texts = {
        (c["case_id"], k["id"]): k["requirement"]
        for c in master["cases"]
        for k in c["evaluator_only"]["required_checks"]
    }
    for path in records:
        record = json.loads(path.read_text())
        for check, status in record["checks"].items():
            if status == "fail":
                return record["case_id"], check, texts[(record["case_id"], check)]
    raise AssertionError("no record failed a check")


def test_the_html_report_reads_well_in_a_browser(tmp_path):
    records = make_records(tmp_path)
    rate, outcomes = expected_pass_rate(records)
    assert "PASS" in outcomes and "FAIL" in outcomes and "NOT_TESTED" in outcomes
    case_id, check, requirement = a_failed_check(records)
    page_path = tmp_path / "report.html"
    casec("report", *records, "--suite", SUITE, "--html", page_path)

    problems, requests = [], []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1600})
            page.on("console", lambda m: m.type == "error" and problems.append(m.text))
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.on("requestfailed", lambda r: problems.append(f"failed: {r.url}"))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(page_path.as_uri(), wait_until="load")

            assert problems == []
            assert requests == [page_path.as_uri()], "nothing but the page is loaded"
            assert page.locator("#overall-pass-rate").inner_text() == rate
            charts = page.locator("svg")
            assert charts.count() > 1
            assert charts.first.is_visible()
            assert charts.first.bounding_box()["width"] > 200
            # The failed check's text, in the card of its case.
            card = page.locator(f"#case-{case_id}")
            assert requirement in card.inner_text(), (check, requirement)
            # The judge's reason for the check it found not met.
            assert UNMET_REASON in page.locator(f"#case-{UNMET[0]}").inner_text()
            # A case links to its trace, shown on the page.
            page.locator(f"#case-{case_id} a[href='#trace-{case_id}']").click()
            assert page.evaluate("location.hash") == f"#trace-{case_id}"
            assert page.locator(f"#trace-{case_id}").is_visible()

            page.screenshot(path=str(tmp_path / "report.png"), full_page=False)
            shots = os.environ.get("CASEC_SCREENSHOTS")
            if shots:
                page.goto(page_path.as_uri())
                page.screenshot(path=str(Path(shots) / "report-top.png"))
                page.goto(page_path.as_uri() + f"#case-{UNMET[0]}")
                page.screenshot(path=str(Path(shots) / "report-case.png"))
        finally:
            browser.close()
