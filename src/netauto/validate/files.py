"""Where the files to validate come from: an on-disk rendered tree or in-memory artifacts."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from netauto.errors import NetautoError
from netauto.render.engine import Artifact
from netauto.reading import read_bounded
from netauto.render.compare import reference_limit
from netauto.render.output import MANIFEST


class FileSet:
    """device -> {on-device path -> text}; `root` is the fabric folder when the files are on disk."""

    def __init__(self, files: dict[str, dict[str, str]], root: Path | None = None) -> None:
        self.files = files
        self.root = root

    @classmethod
    def from_artifacts(cls, artifacts: Iterable[Artifact]) -> "FileSet":
        files: dict[str, dict[str, str]] = {}
        for art in artifacts:
            files.setdefault(art.device, {})[art.path] = art.content
        return cls(files)

    @classmethod
    def from_dir(cls, fabric_dir: Path) -> "FileSet":
        files: dict[str, dict[str, str]] = {}
        for dev_dir in sorted(p for p in fabric_dir.iterdir() if p.is_dir() and not p.name.startswith(".")):
            per: dict[str, str] = {}
            for path in [dev_dir, *dev_dir.rglob("*")]:
                if path.is_symlink():  # never read what a link points at (/etc/shadow into a DRIFT finding)
                    raise BadInput(f"{path}: a symlink; a rendered tree holds only folders and regular files "
                                   "(fix: remove it from the --configs folder)")
                if path.is_file() and not path.name.startswith("."):
                    rel = path.relative_to(dev_dir).as_posix()
                    per[rel] = _read(path, reference_limit(f"{dev_dir.name}/{rel}"))
            files[dev_dir.name] = per
        return cls(files, fabric_dir)

    def get(self, device: str, path: str) -> str | None:
        return self.files.get(device, {}).get(path)

    def devices(self) -> list[str]:
        return list(self.files)

    def paths(self) -> list[tuple[str, str]]:
        return [(d, p) for d, per in self.files.items() for p in per]


class BadInput(NetautoError):
    """Bad usage or input of `netauto validate`: exit 2."""

    exit_code = 2


def _read(path: Path, limit: int) -> str:
    """A file of a `--configs` tree: bounded (a tree handed over for checking may be hostile), never a traceback."""
    return read_bounded(path, limit, BadInput, "check the --configs folder's permissions",
                        "remove it from the --configs folder")


def fabric_dir(configs: Path, fabric: str) -> Path:
    """`--configs DIR`: DIR/<fabric>/ as `netauto render -o DIR` writes it (DIR itself is accepted too)."""
    if (configs / fabric).is_dir():
        return configs / fabric
    if configs.is_dir() and ((configs / MANIFEST).exists() or configs.name == fabric):
        return configs
    raise BadInput(f"{configs}: no rendered tree of fabric {fabric!r} (expected {configs / fabric}/<device>/...; "
                   f"render one with `netauto render -o {configs}`)")
