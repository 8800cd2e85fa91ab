"""The `scripts/get-*` commands of the SONiC kits netauto checks against but does not ship (scripts/get-sonic-yang-models:
netauto.validate.yang_models, scripts/get-sonic-cfggen: netauto.validate.sonic_cfggen): one shape. `where` prints
the folder the lookup finds (exit 1 with every place it looked when none); `fetch` (the default) fetches the pinned
sonic-buildimage commit into the cache or `--dest`; `--if-missing` fetches only when the lookup finds nothing. A
failed fetch is one `error:` line on stderr, exit 1."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from netauto.cache import DEV_CHECKOUT


@dataclass(frozen=True)
class Lookup:
    found: Path | None
    searched: list[tuple[str, Path]]  # (what, where) in lookup order

    def describe(self) -> str:
        return "; ".join(f"{what} {where}" for what, where in self.searched)


@dataclass(frozen=True)
class KitCommand:
    prog: str  # the script's name: get-sonic-yang-models
    doc: str  # the module's docstring: --help's description
    name: str  # what it fetches, as its lines name it: "SONiC YANG models"
    missing: str  # `where` when the lookup finds nothing: "no SONiC YANG models"
    finds: str  # what `--if-missing` finds: "models", "a kit"
    cache: Path  # --dest's default
    repository: str  # --repository's default, as its help names it
    commit: str  # the pinned sonic-buildimage commit
    errors: tuple[type[BaseException], ...]  # a fetch's expected failures: one line, exit 1
    # more store_true options (flag, help), and what runs after the kit is found or fetched (given them by flag)
    flags: tuple[tuple[str, str], ...] = ()
    then: Callable[[Mapping[str, bool]], None] = field(default=lambda _flags: None)
    dir_env: str = ""  # the variable netauto's own commands read the kit from ("": only the tests read the kit)


def dev_copy_note(found: Path, dir_env: str) -> str:
    """What `where`/`--if-missing` add on stderr when only the development copy (../shared) was found: the tests
    read it, netauto's commands never do, so the "run scripts/get-..." of their skip line would loop."""
    return (f"note: {found} is a development copy: the tests read it, netauto's own commands do not "
            f"(fix: export {dir_env}={found}, or fetch into the cache: run without --if-missing)")


def run(command: KitCommand, argv: list[str] | None, find: Callable[[], Lookup],
        fetch: Callable[[str | None, str, Path | None], Path]) -> int:
    """The command's exit code. `find()`: the lookup (development checkouts included); `fetch(repository, commit,
    dest)`: the fetched folder."""
    parser = argparse.ArgumentParser(prog=command.prog, description=command.doc,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["fetch", "where"], nargs="?", default="fetch")
    parser.add_argument("--if-missing", action="store_true",
                        help=f"do nothing when the lookup already finds {command.finds} (dev checkouts included)")
    parser.add_argument("--dest", type=Path, default=None, help=f"target folder (default: {command.cache})")
    parser.add_argument("--repository", default=None,
                        help=f"sonic-buildimage git URL or path (default: {command.repository})")
    for flag, text in command.flags:
        parser.add_argument(flag, action="store_true", help=text)
    args = parser.parse_args(argv)
    lookup = find()
    reports = args.action == "where" or args.if_missing  # says what it found instead of fetching
    if reports and command.dir_env and lookup.found is not None and (DEV_CHECKOUT, lookup.found) in lookup.searched:
        print(dev_copy_note(lookup.found, command.dir_env), file=sys.stderr)
    if args.action == "where":
        print(lookup.found if lookup.found else f"{command.missing} (looked in: {lookup.describe()})")
        return 0 if lookup.found else 1
    try:
        if args.if_missing and lookup.found:
            print(f"{command.name}: {lookup.found}")
        else:
            where = fetch(args.repository, command.commit, args.dest)
            print(f"{command.name} of sonic-buildimage {command.commit[:10]}: {where}")
        command.then({flag: getattr(args, flag.lstrip("-").replace("-", "_")) for flag, _ in command.flags})
    except command.errors as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0
