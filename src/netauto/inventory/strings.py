"""String types of the inventory, by where the text lands.

An inventory is hostile input (CI renders every pull request, servers run the rendered scripts as root), so
no inventory field is a bare `str`: each says what it may hold, checked at load time, and the loader reports a
value that does not fit with file:line (exit 2). The alphabets are chosen so a value is inert in every format
it reaches (shell, udev, systemd units, NVUE YAML, frr.conf, ifupdown2, netplan, config_db JSON, Markdown):
no newline or other control character, no quote, `$`, backtick, backslash, `;`, `&`, `|`, `<`, `>`, `#`, no
non-ASCII. The renderers quote for their own formats as well (defence in depth: docs/security.md).

tests/test_hostile_strings.py walks every string field of the schema and injects each hostile token.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated

from pydantic import AfterValidator

from netauto.errors import SchemaValueError


def _checked(pattern: str, what: str, example: str, max_len: int, extra: str = "") -> AfterValidator:
    """The check of a `str` that must fully match `pattern` and be at most `max_len` characters."""
    regex = re.compile(pattern)

    def check(value: str) -> str:
        if len(value) > max_len:
            raise SchemaValueError(f"{what} is {len(value)} characters long, at most {max_len}",
                                   hint=f"shorten it, e.g. {example!r}")
        if not regex.fullmatch(value):
            bad = next((ch for ch in value if not regex.fullmatch(f"a{ch}a")), None)
            shown = f" contains {bad!r}" if bad is not None else " does not start or end as it must"
            raise SchemaValueError(f"{what}{shown}: {_short(value)}",
                                   hint=f"write {extra or 'letters, digits and - _ . only'}, e.g. {example!r}")
        return value

    return AfterValidator(check)


def _ipv4(value: str) -> str:
    try:
        ipaddress.IPv4Address(value)
    except ValueError:
        raise SchemaValueError(f"{_short(value)} is not an IPv4 address", hint="write a dotted quad, e.g. 192.168.200.9") from None
    return value


def _short(value: str) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# A name used as a hostname label, a YAML key, a folder or a file name part (profiles, groups, networks, devices,
# switch models, HWSKUs): RFC 1123-like, plus `_` and `.`, never starting with `.` or `-`.
Name = Annotated[str, _checked(r"[A-Za-z0-9][A-Za-z0-9_.-]*", "a name", "dgx-h100", 63)]
# Linux interface names (IFNAMSIZ 16 incl. NUL; `.`/`..` and `/`, `:`, whitespace refused by the kernel's
# dev_valid_name) and RDMA device names (rdma link; kept to the same alphabet).
IfName = Annotated[str, _checked(r"(?!\.\.?$)[A-Za-z0-9_.-]{1,15}", "an interface name", "rail0", 15,
                  "a Linux interface name: letters, digits and - _ . (1-15 characters)")]
RdmaName = Annotated[str, _checked(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}", "an RDMA device name", "mlx5_0", 32)]
# A switch port as the NOS names it: swp1s0, Ethernet0, eth0; upstream peer ports like Ethernet1/1.
PortName = Annotated[str, _checked(r"[A-Za-z0-9][A-Za-z0-9_./:-]*", "a port name", "swp1s0", 30,
                    "letters, digits and - _ . / : only")]
# Free text that lands in comments and descriptions (a server model, a group's description): one line of
# printable ASCII words; no character that means anything to a shell, YAML, udev, systemd (no `%` specifier) or FRR.
Text = Annotated[str, _checked(r"[A-Za-z0-9 _.,:/()+@=-]*", "text", "NVIDIA DGX H100", 120,
                               "one line of letters, digits, spaces and . , : / ( ) + @ = - _")]
# Where a profile's facts come from: never rendered (documentation inside the inventory only), so any one
# line of printable ASCII.
Note = Annotated[str, _checked(r"[\x20-\x7e]*", "a note", "DGX H100 User Guide", 300, "one line of printable ASCII text")]
# A login name (useradd's NAME_REGEX default plus upper case): it is written to SSH and Ansible inventories.
UserName = Annotated[str, _checked(r"[A-Za-z_][A-Za-z0-9_-]{0,31}", "a user name", "cumulus", 32,
                    "a login name: letters, digits, - and _, starting with a letter or _")]
# An IPv4 address (dotted quad, nothing else): a collector the switches export to.
Ipv4Address = Annotated[str, _checked(r"[0-9.]{7,15}", "an IPv4 address", "192.168.200.9", 15, "a dotted quad"),
                        AfterValidator(_ipv4)]
