"""The ifupdown2 keyword check: every attribute of a rendered interfaces file is one the installed ifupdown2 knows
(`ifquery -s -o json`, cached beside validate's clean-run cache) or one of the Cumulus build's own addons
(`ifup -s` silently accepts `mtuu 9216`)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache

from netauto.cache import cache_dir
from netauto.validate import clean_cache
from netauto.validate.findings import Finding, tool_finding
from netauto.validate.tool_run import FileRef, _files, _run, require

# Keywords of the Cumulus build of ifupdown2 (ethtool / clag addons) that Debian's `ifquery -s` lacks.
CUMULUS_IFUPDOWN_KEYWORDS = frozenset({
    "link-speed", "link-autoneg", "link-fec", "link-duplex", "link-lanes",
    "clag-id", "clagd-enable", "clagd-peer-ip", "clagd-backup-ip", "clagd-sys-mac", "clagd-priority",
    "clagd-args", "clagd-vxlan-anycast-ip",
    # mstpctl addon (needs mstpd; CL "Spanning Tree and Rapid Spanning Tree" page: PortAdminEdge, BPDU guard)
    "mstpctl-portadminedge", "mstpctl-bpduguard",
    # bridge priority on the bridge stanza (same page, "Spanning Tree Priority", Linux tab; the OOB aggregation root)
    "mstpctl-treeprio",
})
IFUPDOWN_STANZAS = ("iface", "auto", "allow-", "source", "source-directory", "mapping", "rename", "template")


@lru_cache(maxsize=1)
def ifupdown2_keyword_catalogue() -> frozenset[str]:
    """Every attribute keyword of the installed ifupdown2 (`ifquery -s -o json`), aliases included.

    `ifquery -s` costs ~0.4 s of CPU, most of a one-leaf re-validation's ifupdown2 time: its answer is kept beside
    validate's clean-run cache, keyed like it by the installed tools' identity (a package upgrade asks again)."""
    ifquery = require("ifquery")
    store = None
    if clean_cache.enabled():
        store = cache_dir("validate") / f"ifquery-{clean_cache.tool_identity(('ifquery',))}.keywords"
        known = clean_cache.read_words(store)
        if known:
            return frozenset(known)
    keywords = _ifquery_keywords(ifquery)
    if store is not None and keywords:
        clean_cache.write_keys(store, sorted(keywords))
    return keywords


def _ifquery_keywords(ifquery: str) -> frozenset[str]:
    r = _run([ifquery, "-s", "-o", "json"], timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"ifquery -s -o json failed (exit {r.returncode}): {r.stderr.strip()[:300]}")
    data = json.loads(r.stdout)
    keywords: set[str] = set()
    for module in data.values():
        for attr, info in (module.get("attrs") or {}).items():
            keywords.add(attr)
            if isinstance(info, dict):
                keywords.update(info.get("aliases") or [])
    return frozenset(keywords)


def ifupdown2_keywords(files: Iterable[FileRef], *, extra: Iterable[str] = CUMULUS_IFUPDOWN_KEYWORDS,
                       catalogue: Iterable[str] | None = None) -> list[Finding]:
    """Every attribute keyword must be known (`ifup -s` silently accepts `mtuu 9216`)."""
    known = set(catalogue if catalogue is not None else ifupdown2_keyword_catalogue()) | set(extra)
    found = []
    for dev, path in _files(files):
        in_iface = False
        for n, raw in enumerate(path.read_text(errors="replace").splitlines(), 1):
            words = raw.split()
            if not words or words[0].startswith("#"):
                continue
            if not raw[0].isspace() and words[0].startswith(IFUPDOWN_STANZAS):
                in_iface = words[0] in ("iface", "template", "mapping")
                continue
            if not in_iface:
                found.append(tool_finding("ifupdown2-keywords", dev, str(path), n, f"unexpected line outside a stanza: {raw.strip()}"))
            elif words[0] not in known:
                found.append(tool_finding("ifupdown2-keywords", dev, str(path), n,
                                         f"unknown keyword {words[0]!r} (not in `ifquery --syntax-help` nor the Cumulus whitelist)"))
    return found
