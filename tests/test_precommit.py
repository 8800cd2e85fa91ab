"""The pre-commit hooks of .pre-commit-hooks.yaml, run by the real `pre-commit` from another repository.

The consumer repository keeps its own inventory/, a templates/ override and golden_configs/, and points
`repo:` at a local git clone of this source tree, exactly as it would at a git server. By default the hooks
are run with `language: system` (the netauto being tested, from PATH) to skip the slow hook-venv build;
NETAUTO_PRECOMMIT_VENV=1 runs them as published (`language: python`: pre-commit runs `pip install .`).
A commit that changes an ECN threshold is rejected with the unified diff; after `netauto golden update`
the same commit passes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from conftest import DEFAULT_INVENTORY, ROOT, require_tool

FULL_VENV = os.environ.get("NETAUTO_PRECOMMIT_VENV") == "1"
SOURCE_FILES = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "src", "templates")


def run(cmd: list[str], cwd: Path, env: dict[str, str], check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, cwd=cwd, env=env, text=True, capture_output=True, timeout=240)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def test_hook_manifest_and_own_config_are_valid():
    pre_commit = require_tool("pre-commit", "pip install pre-commit")
    manifest = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    hooks = {h["id"]: h for h in manifest}
    assert hooks["netauto-golden"]["entry"] == "netauto diff"
    assert hooks["netauto-validate"]["entry"] == "netauto validate"
    assert all(h["pass_filenames"] is False for h in hooks.values())
    run([pre_commit, "validate-manifest", ".pre-commit-hooks.yaml"], ROOT, dict(os.environ))
    run([pre_commit, "validate-config", ".pre-commit-config.yaml"], ROOT, dict(os.environ))
    own = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    own_ids = {h["id"] for repo in own["repos"] for h in repo["hooks"]}
    assert {"netauto-golden", "netauto-validate"} <= own_ids


def _git_env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        PRE_COMMIT_HOME=str(tmp / "pre-commit-home"),
        GIT_AUTHOR_NAME="netauto test", GIT_AUTHOR_EMAIL="test@example.invalid",
        GIT_COMMITTER_NAME="netauto test", GIT_COMMITTER_EMAIL="test@example.invalid",
        GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
    )
    if FULL_VENV:  # the hook must come from its own venv, not from this interpreter's editable install
        env.pop("VIRTUAL_ENV", None)
    else:  # language: system: the netauto next to this interpreter
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def _build_inputs() -> list[str]:
    """What `pip install .` needs: the package, its metadata files and every hatch force-include source."""
    names = list(SOURCE_FILES)
    try:
        import tomllib
    except ImportError:  # Python 3.10
        tomllib = None
    text = (ROOT / "pyproject.toml").read_text()
    if tomllib:
        wheel = tomllib.loads(text).get("tool", {}).get("hatch", {}).get("build", {}).get("targets", {}).get("wheel", {})
        names += [k for k in wheel.get("force-include", {})]
    else:
        section = text.split("[tool.hatch.build.targets.wheel.force-include]", 1)[-1].split("\n[", 1)[0]
        names += [line.split("=")[0].strip().strip('"') for line in section.splitlines() if "=" in line]
    return [n for n in dict.fromkeys(names) if (ROOT / n).exists()]


def _clone_source(dest: Path, env: dict[str, str]) -> str:
    """A git repo holding this source tree as it is now (uncommitted work included), like a release tag."""
    dest.mkdir()
    for name in _build_inputs():
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
        else:
            shutil.copy2(src, dest / name)
    run(["git", "init", "-q", "-b", "main"], dest, env)
    run(["git", "add", "-A"], dest, env)
    run(["git", "commit", "-q", "-m", "netauto"], dest, env)
    return run(["git", "rev-parse", "HEAD"], dest, env).stdout.strip()


def test_golden_hook_rejects_stale_goldens_then_passes(tmp_path):
    pre_commit = require_tool("pre-commit", "pip install pre-commit")
    require_tool("git", "apt-get install git")
    env = _git_env(tmp_path)
    rev = _clone_source(tmp_path / "netauto-src", env)

    repo = tmp_path / "fabric-repo"
    repo.mkdir()
    shutil.copytree(DEFAULT_INVENTORY, repo / "inventory")
    override = repo / "templates" / "host" / "nccl.conf.j2"  # a site-local template override
    override.parent.mkdir(parents=True)
    override.write_text("# site override\n" + (ROOT / "templates/host/nccl.conf.j2").read_text())
    hooks = [{"id": "netauto-golden"}]
    if (ROOT / "src/netauto/cli/validate.py").exists():
        hooks.append({"id": "netauto-validate"})
    if not FULL_VENV:
        # The hooks keep the manifest's entry, args and file filter; only the venv build is skipped: the
        # netauto of this test run (on PATH) is used instead of `pip install .` of the clone, which pulls
        # nornir/netmiko and takes over a minute. NETAUTO_PRECOMMIT_VENV=1 tests the real venv build.
        for hook in hooks:
            hook["language"] = "system"
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(
        {"repos": [{"repo": str(tmp_path / "netauto-src"), "rev": rev, "hooks": hooks}]}, sort_keys=False))
    netauto = [sys.executable, "-c", "from netauto.cli import main; main()"]
    run([*netauto, "golden", "update", "--templates", "templates"], repo, env)
    assert "# site override" in (repo / "golden_configs/gpu-pod1/gpu01/etc/nccl.conf").read_text()

    run(["git", "init", "-q", "-b", "main"], repo, env)
    run([pre_commit, "install"], repo, env)
    run(["git", "add", "-A"], repo, env)
    first = run(["git", "commit", "-m", "fabric as built"], repo, env)
    assert "netauto golden configs up to date" in first.stdout + first.stderr
    assert "Passed" in first.stdout + first.stderr
    if len(hooks) > 1:
        assert "netauto validate" in first.stderr + first.stdout and "Failed" not in first.stderr + first.stdout
        env["SKIP"] = "netauto-validate"  # validated once; the rest of the story is about the goldens

    features = repo / "inventory" / "features.yaml"
    text = features.read_text()
    assert "min_threshold: 150000" in text
    features.write_text(text.replace("min_threshold: 150000", "min_threshold: 250000"))
    run(["git", "add", "inventory/features.yaml"], repo, env)
    head = run(["git", "rev-parse", "HEAD"], repo, env).stdout
    rejected = run(["git", "commit", "-m", "raise ECN min threshold"], repo, env, check=False)
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0, output
    assert "Failed" in output and "netauto-golden" in output
    assert "--- a/su1-r0-leaf/etc/cumulus/datapath/qos/qos_features.conf" in output
    assert "-ecn_red.ROCE_ECN.min_threshold_bytes = 150000" in output
    assert "+ecn_red.ROCE_ECN.min_threshold_bytes = 250000" in output
    assert "netauto golden update" in output
    assert run(["git", "rev-parse", "HEAD"], repo, env).stdout == head  # nothing committed

    run([*netauto, "golden", "update", "--templates", "templates"], repo, env)
    run(["git", "add", "-A"], repo, env)
    accepted = run(["git", "commit", "-m", "raise ECN min threshold"], repo, env)
    assert "Passed" in accepted.stdout + accepted.stderr
    assert run(["git", "status", "--porcelain"], repo, env).stdout == ""
