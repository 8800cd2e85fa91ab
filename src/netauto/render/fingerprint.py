"""The render fingerprint, cheap: which inputs made an output tree, and whether they are unchanged.

A fingerprint covers the inventory (its path and the exact files the loader reads), the template override
folder (path and files), the built-in templates, the code that shapes the output and netauto's version. The
code is every part of the package (a subpackage folder with its data files, or a top-level module) that
render's import closure reaches (`render_parts`: from netauto.render, the resolver and the loader, every
`netauto` import, module-level or in a function), so a changed monitoring rule or netutil helper re-renders
while a change to validate/lab/deploy does not. The inventory and the overrides are hashed every time (a few
KiB). The code and built-in templates are hashed once per change: a cache file in
`netauto.cache.cache_dir("render")` maps the stat signature of the whole package and the templates (path,
size, mtime, ctime, inode of every file) to their content hash; the import closure is computed only then. It is only a cache: a different signature means the files are hashed again, a file
changed less than `RACY_S` before it was stamped is never stamped (a second write within one timestamp tick
keeps the mtime), and deleting the folder costs one hash.

stdlib only (and `netauto/render/__init__.py` imports nothing): `netauto render` with nothing changed answers
before the CLI, Jinja2, pydantic or the inventory loader are imported (`quick_render_check`, called by
`netauto.cli.main`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import netauto
from netauto.cache import cache_dir, read_trusted, write_cache

# Where render's import closure starts: the render package, the one resolver and the loader (what `netauto
# render` runs past the CLI). `render_parts` follows every `netauto` import from these.
RENDER_ROOTS = ("netauto.render", "netauto.model.resolve", "netauto.inventory.loader")
# Hashed, but its imports not followed: the composition (it loads, resolves and hands the cluster to render.session;
# those modules are roots above); its validate steps (validate_build, configs_files) import validate/, which no
# render runs.
NOT_FOLLOWED = frozenset({"netauto.pipeline"})
RACY_S = 2.0  # a file modified this recently is hashed, never trusted by its stat
MANIFEST = ".netauto-manifest.json"  # netauto.render.output.MANIFEST (a test checks they agree)
MAX_STAMPS = 16  # code signatures kept (several checkouts or versions on one machine)


def package_dir() -> Path:
    return Path(netauto.__file__).resolve().parent


def builtin_templates() -> Path:
    """The built-in templates folder: the package's templates/ (a wheel), else the checkout's (source or editable
    install). The one definition: `netauto.render.engine` renders from it, the fingerprint hashes it."""
    packaged = package_dir() / "templates"  # wheel install
    return packaged if packaged.is_dir() else package_dir().parents[1] / "templates"


def inventory_files(root: Path) -> list[Path] | None:
    """The files `netauto.inventory.loader.inventory_files` reads (a folder's *.yaml/*.yml, not its subfolders,
    or the one file), when all are regular files; None for anything else (the loader then says what is wrong)."""
    try:
        if root.is_dir():
            files = sorted(p for p in root.iterdir() if p.suffix in {".yaml", ".yml"})
        else:
            files = [root]
        if not files or not all(stat.S_ISREG(os.lstat(f).st_mode) for f in files):
            return None
    except OSError:
        return None
    return files


def _code_files(root: Path) -> list[tuple[str, os.stat_result]]:
    """Regular files below `root` (or `root` itself), sorted, without byte code."""
    if root.is_file():
        return [(root.name, os.stat(root))]
    found = []
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if name.endswith(".pyc"):
                continue
            path = os.path.join(dirpath, name)
            st = os.stat(path)
            if stat.S_ISREG(st.st_mode):
                found.append((os.path.relpath(path, root).replace(os.sep, "/"), st))
    return sorted(found, key=lambda item: item[0])


def _module_file(package: Path, name: str) -> Path | None:
    """The file of module `name` (netauto.x.y) in `package`: x/y/__init__.py or x/y.py; None if neither."""
    base = package.joinpath(*name.split(".")[1:])
    for path in (base / "__init__.py", base.with_suffix(".py")):
        if path.is_file():
            return path
    return None


# `import netauto.x[, netauto.y]` and `from netauto.x import a, b` / `(a,\n b)`, at any indentation. Read as
# text, not parsed (a parse of render's ~190 modules takes 0.7 s): a match inside a string only adds a part.
_IMPORT = re.compile(r"^[ \t]*(?:import[ \t]+(netauto[\w.]*(?:[ \t]*,[ \t]*[\w.]+)*)"
                     r"|from[ \t]+(netauto[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*))", re.MULTILINE)


def _netauto_imports(path: Path) -> set[str]:
    """Every `netauto...` module (and module.attribute: it may name a submodule) that `path` imports, anywhere
    in the file (a function-level import is as much a dependency as one at the top)."""
    found: set[str] = set()
    for plain, module, names in _IMPORT.findall(path.read_text(encoding="utf-8", errors="replace")):
        if plain:
            found.update(n.strip() for n in plain.split(","))
            continue
        found.add(module)
        for item in names.split("#")[0].strip("()\n ").split(","):
            name = item.split("#")[0].split()[:1]
            if name:
                found.add(f"{module}.{name[0]}")
    return found


def render_parts(package: Path) -> list[str]:
    """The top-level parts of `package` (a subpackage folder, whole with its data files, or a module file)
    that render's import closure reaches from `RENDER_ROOTS`, sorted."""
    todo = list(RENDER_ROOTS)
    todo += [f"netauto.render.{p.relative_to(package / 'render').with_suffix('').as_posix().replace('/', '.')}"
             for p in (package / "render").rglob("*.py")]
    seen: set[Path] = set()
    while todo:
        name = todo.pop()
        path = _module_file(package, name)
        if path is None or path in seen:
            continue
        seen.add(path)
        if name in NOT_FOLLOWED:
            continue
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(2, len(parts))]  # a module's packages run their __init__
        todo += _netauto_imports(path)
    return sorted({p.relative_to(package).parts[0] for p in seen})


def _code_sources(templates: Path | None) -> list[tuple[str, Path]]:
    sources = [("templates", builtin_templates())]
    if templates:
        sources.append(("overrides", Path(templates)))
    return sources


def _stamps_file() -> Path:
    return cache_dir("render") / "code-stamps.json"


def _load_stamps() -> dict[str, str]:
    try:
        data = json.loads(read_trusted(_stamps_file()) or b"{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) and data.get("version") == netauto.__version__ else {}


def _save_stamps(data: dict[str, str]) -> None:
    """Write the stamp cache atomically, 0600 (best effort: a read-only home only costs a hash next time)."""
    write_cache(_stamps_file(), json.dumps(data))


def code_digest(templates: Path | None) -> str:
    """The content hash of the built-in templates, the code that shapes the output (`render_parts`) and the
    override folder."""
    package = package_dir()
    listed = [(label, root, _code_files(root) if root.exists() else [])
              for label, root in [*_code_sources(templates), ("code", package)]]
    signature = hashlib.blake2b(digest_size=16)
    now = time.time()
    racy = False
    for label, root, files in listed:
        signature.update(f"{label}:{root}\0".encode())
        for rel, st in files:
            signature.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_ino}\0".encode())
            racy = racy or now - max(st.st_mtime, st.st_ctime) < RACY_S
    key = signature.hexdigest()
    stamps = _load_stamps()
    if key in stamps and not racy:
        return stamps[key]
    parts = render_parts(package)
    digest = hashlib.blake2b(digest_size=16)
    for label, root, files in listed:
        for rel, _st in files:
            if label == "code" and rel.split("/")[0] not in parts:
                continue  # not in render's import closure: a change there leaves the output as it was
            digest.update(f"{label}:{rel}\0".encode())
            digest.update((root / rel if root.is_dir() else root).read_bytes())
            digest.update(b"\0")
    value = digest.hexdigest()
    if not racy:
        stamps = {k: v for k, v in stamps.items() if k != "version"}
        kept = dict(list(stamps.items())[-(MAX_STAMPS - 1):])
        _save_stamps({"version": netauto.__version__, **kept, key: value})
    return value


def render_fingerprint(inventory: Path, templates: Path | None, files: list[Path] | None = None,
                       code: str | None = None) -> str:
    """The fingerprint of a render of `inventory` (its files: `files`, default the loader's rule) with `templates`
    (`code`: their `code_digest`, when the caller has it)."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"netauto:{netauto.__version__}\0".encode())
    # Which inventory and overrides, not only their content: a tree is "up to date" only for the inputs that
    # made it (two inventories rendering into one folder never share a fingerprint).
    for label, where in (("inventory-path", inventory), ("templates-path", templates)):
        digest.update(f"{label}:{Path(where).resolve() if where else ''}\0".encode())
    inventory = Path(inventory)
    for path in files if files is not None else inventory_files(inventory) or []:
        digest.update(f"inventory:{path.relative_to(inventory) if path != inventory else path.name}\0".encode())
        digest.update(path.read_bytes())
        digest.update(b"\0")
    digest.update(f"code:{code or code_digest(templates)}\0".encode())
    return digest.hexdigest()


# ---------------------------------------------------------------- `netauto render` with nothing changed
def _index_file(output: Path, inventory: Path, templates: Path | None) -> Path:
    key = "\0".join(str(p.resolve()) if p else "" for p in (output, inventory, templates))
    return cache_dir("render") / f"target-{hashlib.blake2b(key.encode(), digest_size=12).hexdigest()}.json"


def remember_target(output: Path, inventory: Path, templates: Path | None, target: Path) -> None:
    """Record where `render -i inventory -o output` put its tree (the fabric's name is in the inventory)."""
    write_cache(_index_file(output, inventory, templates),
                json.dumps({"version": netauto.__version__, "target": str(target.resolve())}))


def stat_key(path: str | Path) -> list[int] | None:
    """Size, mtime and mode of a regular file (never through a symlink); None for anything else."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return [st.st_size, st.st_mtime_ns, st.st_mode & 0o777]


_READ: dict[str, tuple[tuple[int, int, int], Any]] = {}  # manifest path -> (its stat, its data): this process


def manifest_of(out_dir: Path) -> Any:
    """The parsed manifest of the tree at `out_dir` (OSError, ValueError when unreadable), read once per process
    while its size, mtime and inode stay (`tree_matches`, then the drain fast path, read it: 3 MB at 10k)."""
    path = str(Path(out_dir, MANIFEST))
    st = os.lstat(path)
    key = (st.st_size, st.st_mtime_ns, st.st_ino)
    if path in _READ and _READ[path][0] == key:
        return _READ[path][1]
    data = json.loads(Path(path).read_bytes())
    _READ[path] = (key, data)
    return data


def tree_matches(out_dir: Path, fingerprint: str) -> bool:
    """True when `out_dir` holds a tree rendered from inputs with this fingerprint, no file touched since and no
    update half-done (netauto.render.output's journal)."""
    root = str(out_dir)
    try:
        if os.path.islink(root) or os.path.lexists(f"{root}/{JOURNAL}"):
            return False
        manifest = manifest_of(out_dir)
    except (OSError, ValueError):
        return False
    if not isinstance(manifest, dict) or manifest.get("fingerprint") != fingerprint:
        return False
    files = manifest.get("files")
    if not isinstance(files, dict):
        return False
    return all(isinstance(e, dict) and stat_key(f"{root}/{rel}") == e.get("stat") for rel, e in files.items())


JOURNAL = ".netauto-journal"  # netauto.render.output.JOURNAL


OPTIONS = {"-i": "inventory", "--inventory": "inventory", "-o": "output", "--output": "output",
           "--templates": "templates"}


def _argv_options(argv: list[str]) -> dict[str, str] | None:
    """`render` and its -i/-o/--templates options as click reads them; None for anything else (--help, a global
    option, an unknown option, an empty value): the full CLI handles those."""
    if not argv or argv[0] != "render":
        return None
    found: dict[str, str] = {}
    args = argv[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, value = arg.partition("=")
        if arg in OPTIONS and i + 1 < len(args):
            found[OPTIONS[arg]] = args[i + 1]
            i += 1
        elif eq and name.startswith("--") and name in OPTIONS:
            found[OPTIONS[name]] = value
        elif arg[:2] in ("-i", "-o") and len(arg) > 2:
            found[OPTIONS[arg[:2]]] = arg[2:]
        else:
            return None
        i += 1
    return found if all(found.values()) else None


@dataclass(frozen=True)
class RenderRequest:
    """A `netauto render` the fast paths may answer: its folders, the tree it wrote last and the fingerprint
    of its inputs now."""

    inventory: Path
    output: Path
    templates: Path | None
    target: Path  # OUTPUT/<fabric> as the last render wrote it
    fingerprint: str
    code: str  # code_digest(templates)


def render_request(argv: list[str]) -> RenderRequest | None:
    """`netauto render ARGS` when a previous render of the same inventory into the same folder is recorded and
    the inventory's files are regular files; None else (then the full command runs). Never raises."""
    try:
        opts = _argv_options(argv)
        if opts is None:
            return None
        env = os.environ
        inventory = Path(opts.get("inventory") or env.get("NETAUTO_INVENTORY") or "inventory")
        output = Path(opts.get("output") or env.get("NETAUTO_RENDER_OUTPUT") or "build")
        templates_s = opts.get("templates") or env.get("NETAUTO_TEMPLATES") or None
        templates = Path(templates_s) if templates_s else None
        if templates is not None and not templates.is_dir():
            return None
        index = json.loads(read_trusted(_index_file(output, inventory, templates)) or b"null")
        if not isinstance(index, dict) or index.get("version") != netauto.__version__:
            return None
        target = Path(str(index["target"]))
        if target.parent != output.resolve():
            return None
        files = inventory_files(inventory)
        if files is None:
            return None
        code = code_digest(templates)
        return RenderRequest(inventory, output, templates, target,
                             render_fingerprint(inventory, templates, files, code), code)
    except Exception:  # noqa: BLE001 - any surprise: the full command runs and reports it properly
        return None


def quick_render_check(argv: list[str]) -> str | None:
    """The "up to date" line of `netauto render ARGS` when its output tree is current, else None (then the
    full command runs: loads, renders and writes). Never raises."""
    request = render_request(argv)
    return up_to_date_line(request) if request is not None else None


def dead_temp_names(out_dir: Path) -> list[str]:
    """The names of the temp folders killed renders of `out_dir` may have left beside it (`.<name>.tmp-*`,
    `.<name>.old-*`: a staged tree, a swapped-out one whose removal was killed); netauto.render.output removes
    them under the output lock."""
    pattern = re.compile(rf"\.{re.escape(out_dir.name)}\.(tmp|old)-[A-Za-z0-9_]{{8}}")
    try:
        with os.scandir(out_dir.parent) as entries:
            return [e.name for e in entries if pattern.fullmatch(e.name) and e.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def up_to_date_line(request: RenderRequest) -> str | None:
    """The "up to date" line when the tree `request` names is current, else None. Never raises. What a killed
    render left beside the tree (`dead_temp_names`) is the caller's to remove (`netauto.cli.main`)."""
    try:
        if not tree_matches(request.target, request.fingerprint):
            return None
    except Exception:  # noqa: BLE001 - any surprise: the full command runs and reports it properly
        return None
    shown = request.output / request.target.name
    return f"{shown} is up to date (inventory, templates and netauto unchanged)"
