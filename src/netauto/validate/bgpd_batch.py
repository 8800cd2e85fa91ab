"""`bgpd -C` on many files after one start-up: the LD_PRELOAD shim `bgpd_batch.c`, built here with the system C
compiler into netauto's cache folder (see the C file for what it does and why it is exact).

Opt-in (`NETAUTO_BGPD_SHIM=1`): the shim depends on FRR 8.4's internals (bgpd opens its config with `fopen` in
`vty_read_config`) and runs inside a root bgpd, so it is not the default; the default speed path for a
re-validation is the clean-run cache (validate.clean_cache), and a cold run starts one bgpd per file or chunk.
Not asked for, no compiler, a failed build or a cache folder that is not this user's own: `shim()` is None and
`external.frr_bgpd` runs one bgpd per file, as without the shim."""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

from netauto.cache import own_dir, trusted

SOURCE = Path(__file__).with_name("bgpd_batch.c")
LIST_VAR, TIMEOUT_VAR = "NETAUTO_BGPD_BATCH", "NETAUTO_BGPD_TIMEOUT"  # read by bgpd_batch.c
OPT_IN_ENV = "NETAUTO_BGPD_SHIM"  # "1": preload the shim into bgpd -C (FRR 8.4 only; see above)
COMPILERS = ("cc", "gcc", "clang")
SYSTEM_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"


def _compiler() -> str | None:
    return next((found for name in COMPILERS if (found := shutil.which(name, path=SYSTEM_PATH))), None)


def _build(cc: str, folder: Path, name: str, root: Path | None = None) -> Path | None:
    """The shim in `folder` (a cache folder, or this process's private temp folder `root`), built when missing."""
    target = folder / name
    if target.is_file() and trusted(target, root):
        return target  # a library preloaded into a root bgpd must be this user's own
    try:
        if not trusted(folder, root):
            return None
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".bgpd-batch-", suffix=".so")
        os.close(fd)
        r = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", tmp, str(SOURCE), "-ldl"], capture_output=True,
                           timeout=120, stdin=subprocess.DEVNULL, env={**os.environ, "LC_ALL": "C"})
        if r.returncode != 0:
            os.unlink(tmp)
            return None
        os.chmod(tmp, 0o755)
        os.replace(tmp, target)
    except (OSError, subprocess.SubprocessError):
        return None
    return target


def wanted() -> bool:
    """The operator asked for the shim (NETAUTO_BGPD_SHIM=1)."""
    return os.environ.get(OPT_IN_ENV) == "1"


def shim() -> Path | None:
    """The built shim when it is asked for (`wanted`) and can be built here, else None."""
    return _built() if wanted() else None


@lru_cache(maxsize=1)
def _built() -> Path | None:
    """The built shim (cached per source text and compiler), or None when it cannot be built here."""
    cc = _compiler()
    if cc is None or not SOURCE.is_file():
        return None
    st = os.stat(os.path.realpath(cc))
    key = hashlib.blake2b(SOURCE.read_bytes() + f"{cc}:{st.st_size}:{st.st_mtime_ns}".encode(), digest_size=8)
    name = f"bgpd-batch-{key.hexdigest()}.so"
    folder = own_dir("validate")
    built = None if folder is None else _build(cc, folder, name)
    if built is None:  # no usable cache folder: a private folder for this process
        folder = Path(tempfile.mkdtemp(prefix="netauto-bgpd-shim-"))
        atexit.register(shutil.rmtree, folder, True)
        built = _build(cc, folder, name, root=folder)
    return built


def command(bgpd: str, library: Path, listing: Path, timeout: int) -> list[str]:
    """`bgpd -C` checking every config path listed in `listing` (one per line), each in its own forked child."""
    return ["env", f"LD_PRELOAD={library}", f"{LIST_VAR}={listing}", f"{TIMEOUT_VAR}={timeout}",
            bgpd, "-C", "-u", "frr", "-g", "frr", "-f", str(listing)]
