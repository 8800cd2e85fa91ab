"""The Jinja2 environment every render uses: the built-in templates under an optional override folder (then Jinja2's
sandbox, with bounds: netauto.render.bounded), a loader that never follows a link out of its folders, the
`comment` filter, and compiled templates kept in this user's own cache folder."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import jinja2
import jinja2.bccache
import jinja2.sandbox

from netauto.cache import open_trusted, own_dir
from netauto.errors import NetautoError
from netauto.render import bounded
from netauto.render.fingerprint import builtin_templates


class _ContainedLoader(jinja2.FileSystemLoader):
    """FileSystemLoader that never reads through a symlink out of its folders: a template override folder
    comes with the repository (a pull request), and a link to /etc/shadow would land in a rendered file and
    in the `netauto diff` output of CI."""

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        if len(source) > bounded.MAX_TEMPLATE_BYTES:
            raise bounded.TemplateLimitError(f"template {filename}: {len(source):,} characters, at most "
                                             f"{bounded.MAX_TEMPLATE_BYTES:,} (fix: split it into macros)")
        real = os.path.realpath(filename)
        if not any(real.startswith(os.path.realpath(root) + os.sep) for root in self.searchpath):
            raise NetautoError(f"template {template}: {filename} leads outside the template folders "
                               f"(to {real}); netauto does not follow it (fix: copy the file instead of linking)")
        return source, filename, uptodate


def comment_text(value: object) -> str:
    """Inventory text inside a comment line of any rendered format (shell, udev, netplan, nccl.conf): control
    characters (a newline would end the comment and start a command) become spaces. The inventory's types
    already refuse them (inventory/strings.py); this is the renderer's own line of defence."""
    return _CONTROL.sub(" ", str(value))


_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]")


@lru_cache(maxsize=8)
def environment(override: str | None = None) -> jinja2.Environment:
    """The built-in templates, under a user's override folder if given. With an override the environment is
    Jinja2's sandbox: override templates may come from a pull request (the pre-commit hooks render them), and
    the sandbox refuses `{{ ''.__class__.__mro__ }}`-style escapes to Python; built-in templates alone keep the
    faster plain environment, which also skips Jinja2's per-render stat of the template file (auto_reload: 13,000
    stats per 10k render; the built-in templates do not change while netauto runs, an override folder may)."""
    paths = ([override] if override else []) + [str(builtin_templates())]
    cls = bounded.BoundedSandbox if override else jinja2.Environment
    env = cls(
        loader=_ContainedLoader(paths),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        auto_reload=bool(override),
        bytecode_cache=_bytecode_cache(),
    )
    env.filters["comment"] = comment_text
    return env


class _OwnBytecodeCache(jinja2.FileSystemBytecodeCache):
    """Jinja2 unpickles a cached template's code: only an entry that is this user's own is loaded
    (`netauto.cache.trusted`; anything else compiles again and is replaced)."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        handle = open_trusted(Path(self._get_cache_filename(bucket)))
        if handle is not None:
            with handle:
                bucket.load_bytecode(handle)


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Compiled templates kept in `netauto.cache.cache_dir("jinja")` (0700; Jinja2 keys each by the template's
    name and checks its source's hash, so an edited template compiles again): a process rendering a few devices
    (`netauto render` after a drain) skips compiling their templates. None when the folder cannot be made or
    is not this user's own (`netauto.cache.own_dir`)."""
    folder = own_dir("jinja")
    return None if folder is None else _OwnBytecodeCache(str(folder))
