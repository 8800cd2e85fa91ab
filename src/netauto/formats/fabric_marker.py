"""The fabric a device belongs to, as netauto writes it on the device: `/etc/netauto/fabric` (a netauto file
outside every NOS-managed tree) and the header line of each text file netauto renders
(`<device>: rendered by netauto from fabric <name>`)."""

from __future__ import annotations

import re

MARKER = "/etc/netauto/fabric"
_HEADER = re.compile(rb"rendered by netauto from fabric ([A-Za-z0-9][A-Za-z0-9._-]*?)[;,:.]?(?:\s|$)")
_LINE = re.compile(r"^fabric=(\S+)\s*$", re.M)
_ID_LINE = re.compile(r"^id=(fid-[0-9a-f]{32})\s*$", re.M)
FABRIC_ID = re.compile(r"fid-[0-9a-f]{32}")  # a fabric's id: recorded at its first deploy (deploy/identity.py)
HEAD_BYTES = 512  # the header is the first line or two


def marker_text(fabric: str, fabric_id: str | None = None) -> str:
    return (f"# this device belongs to netauto fabric {fabric} (netauto deploy / lab up; `deploy --adopt` "
            f"moves it)\nfabric={fabric}\n" + (f"id={fabric_id}\n" if fabric_id else ""))


def parse_marker(data: bytes) -> str | None:
    m = _LINE.search(data.decode(errors="replace"))
    return m.group(1) if m else None


def parse_marker_id(data: bytes) -> str | None:
    """The fabric id a marker records (None: a marker written before ids, or by `lab up`)."""
    m = _ID_LINE.search(data.decode(errors="replace"))
    return m.group(1) if m else None


def header_fabric(data: bytes) -> str | None:
    """The fabric a rendered file's header names (None: no netauto header in its first bytes)."""
    m = _HEADER.search(data[:HEAD_BYTES])
    return m.group(1).decode() if m else None
