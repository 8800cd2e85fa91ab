"""`promtool check rules` and `promtool test rules` on the rendered monitoring/ folder (Prometheus's own
checker, Debian package `prometheus`), in netauto.validate.external's style: `(device, path)` refs in, a list of
Finding out (empty = accepted), ToolMissing when promtool is not installed."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from netauto.render.monitoring import INTENT_RULES
from netauto.validate.findings import Finding, tool_finding
from netauto.validate.tool_run import FileRef, _files, _run, require

TEST_SUFFIX = ".test.yml"
INTENT_FILE = INTENT_RULES.rsplit("/", 1)[1]
TIMEOUT = 300  # a large fabric's intent file holds ~100,000 rules (~20 MB on the 10k example)


def _findings(tool: str, dev: str, path: Path, output: str) -> list[Finding]:
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    bad = [ln for ln in lines if "FAILED" in ln or "error" in ln.lower() or ln.startswith("-")] or lines[-5:]
    return [tool_finding(tool, dev, str(path), None, " | ".join(bad)[:2000])]


def rules(files: Iterable[FileRef]) -> list[Finding]:
    """`promtool check rules` on each rules file, then `promtool test rules` on the unit-test file beside it
    (`<name>.test.yml`), run in its folder as an operator would. The intent file (constant series only, data)
    is checked and has no unit tests of its own: the tests feed a sample of its facts (monitoring.unittests)."""
    promtool = require("promtool")
    found: list[Finding] = []
    for dev, path in _files(files):
        if path.name.endswith(TEST_SUFFIX):
            continue
        p = _run([promtool, "check", "rules", str(path)], timeout=TIMEOUT, long=True)
        if p.returncode != 0:
            found += _findings("promtool-check", dev, path, p.stdout + p.stderr)
            continue
        if path.name == INTENT_FILE:
            continue
        test = path.with_name(path.name[: -len(".yml")] + TEST_SUFFIX)
        if not test.is_file():
            found.append(tool_finding("promtool-test", dev, str(test), None, "unit tests missing beside the rules"))
            continue
        p = _run(["sh", "-c", 'cd "$1" && exec "$2" test rules "$3"', "sh", str(test.parent), promtool, test.name],
                 timeout=TIMEOUT, long=True)
        if p.returncode != 0:
            found += _findings("promtool-test", dev, test, p.stdout + p.stderr)
    return found
