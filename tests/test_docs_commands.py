"""The command examples of README.md and docs/*.md are run, and `mkdocs build --strict` passes.

Convention (docs/contributing.md, "Documentation"): a fenced block with the info string `console` holds
commands; a line starting with `$ ` is a command, the lines up to the next command its expected output
(stdout and stderr together, trailing blanks stripped); a line that is exactly `...` matches any number of
lines. Commands run with `bash -c`, in order, in a scratch folder that holds a symlink to every top-level entry
of the repository (so `-i inventory` reads the real inventory while `-o build` writes into the scratch folder),
with this checkout's `netauto` first on PATH. A block preceded by `<!-- doccheck: skip (reason) -->` is not run.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import tomllib
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOC_FILES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SKIP = re.compile(r"^<!-- doccheck: skip \((?P<reason>[^)]+)\) -->$")
FENCE = re.compile(r"^(?P<fence>```+|~~~+)\s*(?P<info>[\w-]*)")
NOT_LINKED = {".git", ".venv", "build", "site", "dist", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis"}
TIMEOUT_S = 300


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    info: str
    lines: tuple[str, ...]
    skip_reason: str | None

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"


@dataclass(frozen=True)
class Step:
    command: str
    expected: tuple[str, ...]


def fenced_blocks(path: Path) -> list[Block]:
    """Every fenced block of a Markdown file, with the skip marker of the line before it (blank lines between
    marker and fence are allowed)."""
    blocks: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    last_text = ""
    while i < len(lines):
        match = FENCE.match(lines[i].lstrip())
        if not match:
            if lines[i].strip():
                last_text = lines[i].strip()
            i += 1
            continue
        indent = len(lines[i]) - len(lines[i].lstrip())
        fence = match["fence"]
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not lines[j].lstrip().startswith(fence):
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        skip = SKIP.match(last_text)
        blocks.append(Block(path, i + 1, match["info"], tuple(body), skip["reason"] if skip else None))
        last_text = ""
        i = j + 1
    return blocks


def steps(block: Block) -> list[Step]:
    out: list[Step] = []
    for line in block.lines:
        if line.startswith("$ "):
            out.append(Step(line[2:], ()))
        elif out:
            out[-1] = Step(out[-1].command, (*out[-1].expected, line.rstrip()))
        elif line.strip():
            raise AssertionError(f"{block.id}: output before the first `$ ` command: {line!r}")
    return out


def matches(expected: tuple[str, ...], actual: str) -> bool:
    """Line by line, `...` matching any number of lines (none included)."""
    want = list(expected)
    while want and not want[-1]:
        want.pop()
    pattern = "".join(r"(?:[^\n]*\n)*?" if line == "..." else re.escape(line) + r"\n" for line in want)
    got = "".join(line.rstrip() + "\n" for line in actual.rstrip("\n").splitlines()) if actual.strip() else ""
    return re.fullmatch(pattern, got) is not None


ALL_BLOCKS = [b for path in DOC_FILES for b in fenced_blocks(path)]
CONSOLE = [b for b in ALL_BLOCKS if b.info == "console"]
CHECKED = [b for b in CONSOLE if b.skip_reason is None]


def scratch_root(tmp: Path) -> Path:
    """The repository's top-level entries as symlinks, so what a command writes stays in tmp."""
    for entry in REPO.iterdir():
        if entry.name not in NOT_LINKED:
            (tmp / entry.name).symlink_to(entry)
    return tmp


def command_env() -> dict[str, str]:
    bindir = str(Path(sys.executable).parent)  # the interpreter's venv holds the `netauto` script
    src = str(REPO / "src")
    path = os.environ.get("PYTHONPATH")
    # what a fresh clone has: no NETAUTO_* settings and an empty cache (no SONiC YANG models, no CRDs fetched
    # yet: K8S-01's CRD part is skipped unless a doc's own steps fetch them), so the output does not depend on
    # what this machine has cached or beside it (../shared); a pipe, as `| cat` gives: no COLUMNS
    # (pytest-xdist sets 80, which would fold long lines)
    keep = {k: v for k, v in os.environ.items() if not k.startswith("NETAUTO_") and k != "COLUMNS"}
    cache = Path(tempfile.mkdtemp(prefix="netauto-doccheck-cache-"))
    return {**keep, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}", "XDG_CACHE_HOME": str(cache),
            "PYTHONPATH": src if not path else f"{src}{os.pathsep}{path}", "NO_COLOR": "1"}


def test_commands_run_as_in_a_fresh_clone():
    """The docs' commands find no CRDs and no SONiC YANG models (a fresh clone has none fetched), whatever this
    machine has in its cache, its environment or beside the repository (../shared)."""
    code = ("from netauto.validate.k8s_crds import find_crds; from netauto.validate.yang_models import find_models; "
            "print(find_crds()[0], find_models().found)")
    proc = subprocess.run([sys.executable, "-c", code], env=command_env(), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=60, check=False)
    assert proc.stdout.split() == ["None", "None"], proc.stdout


def test_examples_are_found_and_most_run():
    """The collector sees the README's tour, and the docs keep far more checked blocks than skipped ones."""
    readme = [b for b in CHECKED if b.path.name == "README.md"]
    assert any(s.command.startswith("netauto render") for b in readme for s in steps(b)), "README tour not found"
    commands = {s.command.split()[1] for b in CHECKED for s in steps(b) if s.command.startswith("netauto ")}
    assert {"render", "validate", "show", "plan", "init", "diff", "schema", "bom"} <= commands, commands
    assert len(CHECKED) > len(CONSOLE) - len(CHECKED)


def test_every_skip_marker_has_a_reason_and_precedes_a_block():
    for path in DOC_FILES:
        lines = path.read_text(encoding="utf-8").splitlines()
        for n, line in enumerate(lines, 1):
            if line.lstrip().startswith("<!--") and "doccheck" in line:
                assert SKIP.match(line.strip()), f"{path.name}:{n}: write `<!-- doccheck: skip (reason) -->`"
                following = next((x for x in lines[n:] if x.strip()), "")
                assert FENCE.match(following.lstrip()), f"{path.name}:{n}: a skip marker must precede a fenced block"


def test_matcher_wildcards():
    assert matches(("a", "...", "d"), "a\nb\nc\nd\n")
    assert matches(("a", "...", "b"), "a\nb")
    assert not matches(("a", "b"), "a\nb\nc")
    assert not matches(("a", "...", "x"), "a\nb\nc")
    assert matches((), "")


def changed_in_repo() -> str:
    """The repository's tracked files that differ from HEAD (`git diff --name-only`): what a block changed
    through the scratch folder's symlinks (`cp -r inventory inv` copies the symlink, and `sed -i inv/...` then
    edits the shipped inventory)."""
    proc = subprocess.run(["git", "diff", "--name-only"], cwd=REPO, stdout=subprocess.PIPE, text=True, check=False)
    return proc.stdout


@pytest.mark.parametrize("block", CHECKED, ids=[b.id for b in CHECKED])
def test_console_block(block: Block, tmp_path: Path):
    root = scratch_root(tmp_path)
    env = command_env()
    before = changed_in_repo()
    for step in steps(block):
        proc = subprocess.run(["bash", "-c", step.command], cwd=root, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT_S)
        if proc.returncode == 127 and not os.environ.get("CI"):  # a tool .ci/run installs (jq, ansible) is missing
            pytest.skip(f"{block.id}: `{step.command}`: {proc.stdout.strip().splitlines()[-1]}")
        assert matches(step.expected, proc.stdout), (
            f"{block.id}: `{step.command}` (exit {proc.returncode}) printed:\n{proc.stdout}\n"
            f"expected:\n" + "\n".join(step.expected))
        assert changed_in_repo() == before, (
            f"{block.id}: `{step.command}` changed the repository through a scratch symlink (copy with cp -rL)")


def test_readme_test_command_is_what_ci_runs():
    """CI runs `.ci/run`; the README shows it as the second command, and it builds the docs strictly."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "\nbash .ci/run" in readme
    assert "mkdocs build --strict" in ci and "python -m pytest" in ci
    mkdocs = next(line for line in ci.splitlines() if line.startswith("mkdocs build"))
    # mkdocs 1.6: --quiet drops the warnings before --strict counts them (a broken link then exits 0)
    assert not re.search(r"\s(-q|--quiet)\b", mkdocs), mkdocs
    assert re.search(r"pip install -q -e '\.\[[a-z,]*docs[a-z,]*\]'", ci), ".ci/run must install the docs extra"
    # the README's install line (skipped by the block test: it installs from PyPI) does what .ci/run does
    install = next(line for line in readme.splitlines() if line.startswith("python3 -m venv .venv && "))
    assert install.split("  #")[0].split(" && ")[:3] == ["python3 -m venv .venv", ". .venv/bin/activate",
                                                         "pip install '.[all]'"]
    # `all` is every documented feature, and .ci/run installs at least what it gives (the tests need it)
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    names = {re.split(r"[<>=\[; ]", r, maxsplit=1)[0].lower().replace("_", "-") for r in extras["all"]}
    assert {"kubernetes-validate", "nornir-napalm", "nornir-netmiko", "pybatfish"} <= names
    ci_extras = re.search(r"pip install -q -e '\.\[([a-z,]+)\]'", ci)
    assert ci_extras
    ci_names = {re.split(r"[<>=\[; ]", r, maxsplit=1)[0].lower().replace("_", "-")
                for e in ci_extras.group(1).split(",") for r in extras.get(e, [])}
    assert names <= ci_names, f".ci/run does not install {sorted(names - ci_names)} of the `all` extra"
    assert "python3 -m venv .venv\n. .venv/bin/activate\n" in ci and "python3-venv" in ci


def test_readme_is_short():
    assert len((REPO / "README.md").read_text(encoding="utf-8").splitlines()) <= 160


def test_mkdocs_build_strict(tmp_path: Path):
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        if os.environ.get("CI"):
            pytest.fail("mkdocs or mkdocs-material missing in CI: .ci/run must pip install '.[docs]'")
        pytest.skip("mkdocs not installed (pip install '.[docs]')")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=REPO, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout
    assert (tmp_path / "site" / "getting-started" / "index.html").is_file()


def test_readme_table_links_every_page_of_the_site():
    """The README's Documentation table is a newcomer's map: every docs/*.md page of mkdocs.yml's nav (but the
    home page) is linked from it (Tenants, Compute planes, Physical plan and Integrations were missing)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8").split("## Documentation", 1)[1]
    nav = re.findall(r":\s*([a-z-]+\.md)\s*$", (REPO / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
    missing = [page for page in nav if page != "index.md" and f"(docs/{page})" not in readme]
    assert nav and not missing, missing
