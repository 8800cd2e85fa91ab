"""Where the SONiC YANG models come from: a pinned sonic-buildimage commit, fetched and rendered into a cache.

netauto does not ship SONiC's models (Apache-2.0, sonic-net/sonic-buildimage). `fetch_models` takes exactly
the two folders it needs from the pinned commit (a shallow, blob-less, sparse git fetch: about 3 MB), copies
`src/sonic-yang-models/yang-models/*.yang` and renders `yang-templates/*.yang.j2` as sonic-yang-models'
own setup.py does for the standard build (Jinja2, trim_blocks, `yang_model_type="py"`).

Lookup order (`find_models`), the first folder holding sonic-types.yang wins:
  1. $NETAUTO_SONIC_YANG_DIR (the user's own copy, e.g. a rendered sonic-buildimage checkout)
  2. the cache: $XDG_CACHE_HOME/netauto/sonic-yang-models/<commit> (default ~/.cache/...), written by
     `scripts/get-sonic-yang-models` (= `python -m netauto.validate.yang_models fetch`)
  3. development checkouts only (`dev=True`, the tests): ../shared/sonic-yang-models beside the repository
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from netauto.cache import cache_dir, data_dirs, dev_data_dir
from netauto.private_files import private_dir
from netauto.validate.kit_command import KitCommand, Lookup, run

# sonic-buildimage master of 2026-11 (the models the tests and golden SONiC configs are checked against).
PINNED_COMMIT = "086b03bd70f9e211aaaf5f6aefe0790b508d2a94"
DEFAULT_REPOSITORY = "https://github.com/sonic-net/sonic-buildimage.git"
REPO_ENV = "NETAUTO_SONIC_YANG_REPO"  # another URL or a local mirror of sonic-buildimage
DIR_ENV = "NETAUTO_SONIC_YANG_DIR"
DEV_ENV = "NETAUTO_SONIC_YANG_DEV_DIR"  # where a development checkout keeps them (tests point it elsewhere)
MODELS_SUBDIR = "src/sonic-yang-models/yang-models"
TEMPLATES_SUBDIR = "src/sonic-yang-models/yang-templates"
MARKER = "sonic-types.yang"  # rendered from a template: its presence means the folder is complete
STAMP = "NETAUTO-SOURCE"


class YangModelsError(Exception):
    pass


def cache_root() -> Path:
    return cache_dir("sonic-yang-models")


def models_cache(commit: str = PINNED_COMMIT) -> Path:
    return cache_root() / commit


def dev_dir() -> Path:
    """../shared/sonic-yang-models beside a development checkout."""
    return dev_data_dir("sonic-yang-models", DEV_ENV)


def find_models(dev: bool = False) -> Lookup:
    candidates = data_dirs("sonic-yang-models", dir_env=DIR_ENV, cache=models_cache(), dev_env=DEV_ENV, dev=dev)
    for _, where in candidates:
        if (where / MARKER).is_file():
            return Lookup(where, candidates)
    return Lookup(None, candidates)


def _git(args: list[str], cwd: Path) -> None:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise YangModelsError(f"git {' '.join(args)} failed: {(proc.stderr or proc.stdout).strip()[-400:]}")


def render_templates(templates: Path, dest: Path) -> list[Path]:
    """yang-templates/*.yang.j2 -> dest/*.yang, as sonic-yang-models' setup.py renders them (standard build)."""
    import jinja2  # lazy: +37 modules (jinja2) at import otherwise; `netauto validate` and `sonic` import this module for find_models alone

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates)), trim_blocks=True)
    written = []
    for tpl in sorted(templates.glob("*.yang.j2")):
        out = dest / tpl.name[: -len(".j2")]
        out.write_text(env.get_template(tpl.name).render(yang_model_type="py"))
        written.append(out)
    return written


def fetch_models(repository: str | None = None, commit: str = PINNED_COMMIT, dest: Path | None = None) -> Path:
    """Fetch the pinned models into `dest` (default: the cache) atomically; returns the folder."""
    repository = repository or os.environ.get(REPO_ENV) or DEFAULT_REPOSITORY
    dest = dest or models_cache(commit)
    if not shutil.which("git"):
        raise YangModelsError("git is needed to fetch the SONiC YANG models (apt-get install git)")
    private_dir(dest.parent)  # 0700: a cache folder is read only when this user's own (netauto.cache.trusted)
    with tempfile.TemporaryDirectory(prefix=".fetch-", dir=dest.parent) as tmp:
        work = Path(tmp) / "git"
        work.mkdir()
        _git(["init", "-q"], work)
        _git(["remote", "add", "origin", repository], work)
        _git(["sparse-checkout", "set", "--no-cone", f"/{MODELS_SUBDIR}/", f"/{TEMPLATES_SUBDIR}/"], work)
        _git(["fetch", "-q", "--depth", "1", "--filter=blob:none", "origin", commit], work)
        _git(["-c", "advice.detachedHead=false", "checkout", "-q", "FETCH_HEAD"], work)
        staged = Path(tmp) / "models"
        staged.mkdir()
        yang = sorted((work / MODELS_SUBDIR).glob("*.yang"))
        if not yang:
            raise YangModelsError(f"{repository} at {commit}: no {MODELS_SUBDIR}/*.yang")
        for f in yang:
            shutil.copy2(f, staged / f.name)
        rendered = render_templates(work / TEMPLATES_SUBDIR, staged)
        if not (staged / MARKER).is_file():
            raise YangModelsError(f"{repository} at {commit}: {TEMPLATES_SUBDIR} rendered no {MARKER}")
        (staged / STAMP).write_text(
            f"sonic-net/sonic-buildimage {commit} ({repository}), Apache-2.0\n"
            f"{len(yang)} files from {MODELS_SUBDIR}, {len(rendered)} rendered from {TEMPLATES_SUBDIR} "
            f"(yang_model_type=py)\n")
        if dest.exists():
            shutil.rmtree(dest)
        staged.rename(dest)
    return dest


def main(argv: list[str] | None = None) -> int:
    command = KitCommand("get-sonic-yang-models", __doc__ or "", "SONiC YANG models", "no SONiC YANG models", "models",
                         models_cache(), f"${REPO_ENV} or {DEFAULT_REPOSITORY}", PINNED_COMMIT, (YangModelsError,),
                         dir_env=DIR_ENV)
    return run(command, argv, lambda: find_models(dev=True), fetch_models)


if __name__ == "__main__":
    sys.exit(main())
