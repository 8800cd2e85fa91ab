"""Device names: the `naming:` templates of the inventory and the hostnames they produce.

A name becomes a hostname (FRR `hostname`, NVUE `system hostname`, SONiC DEVICE_METADATA), an Ansible host,
a folder of the rendered tree and a line in frr.conf, so it must be a plain RFC 1123 label: no `/` or `..`
(a path outside the output folder), no newline (lines injected into frr.conf). A template is a Python format
string, but only the documented fields with a small integer format are accepted (`{index.__class__}` would
reach object attributes; `{index:>200000000}` asks for 200 MB per name).
"""

from __future__ import annotations

import re
import string
from typing import Any

from netauto.errors import SchemaValueError

FIELDS = ("su", "rail", "pod", "group", "index")  # group: a three-tier super-spine group (spine j of each pod)
# fields of an older inventory: the super-spine group was a "plane" before compute planes took the word
RENAMED = {"plane": "group"}
# RFC 1123 section 2.1 host name label: letters, digits and hyphen, 1-63 characters, no hyphen at either end.
HOSTNAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
_LITERAL = re.compile(r"[A-Za-z0-9-]*")
_SPEC = re.compile(r"0?[1-9]?d?")  # "", "d", "2d", "02d", "03": an integer, zero-padded to at most 9 digits
MAX_TEMPLATE = 128


def check_template(template: str, fields: tuple[str, ...] = FIELDS) -> str:
    """`template` if it only uses `fields` with an integer format and hostname characters; else SchemaValueError."""
    fix = f"use letters, digits, '-' and the fields {', '.join('{' + f + '}' for f in fields)}, e.g. \"su{{su}}-gpu{{index:02d}}\""
    if len(template) > MAX_TEMPLATE:
        raise SchemaValueError(f"name template is {len(template)} characters long, at most {MAX_TEMPLATE}", hint=fix)
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise SchemaValueError(f"{template!r} is not a name template: {exc}", hint=fix) from None
    for literal, field, spec, conversion in parts:
        if not _LITERAL.fullmatch(literal):
            bad = next(ch for ch in literal if not _LITERAL.fullmatch(ch))
            raise SchemaValueError(f"{template!r} contains {bad!r}: a device name is a hostname", hint=fix)
        if field is None:
            continue
        if fields is FIELDS and field in RENAMED:  # the compute naming's old field (a network's never had it)
            new = RENAMED[field]
            raise SchemaValueError(f"{template!r}: {{{field}}} was renamed {{{new}}}",
                                   hint=f"renamed {{{new}}}: write {template.replace('{' + field, '{' + new)!r}")
        if field not in fields:
            raise SchemaValueError(f"{template!r}: unknown field {{{field}}}", hint=fix)
        if conversion is not None:
            raise SchemaValueError(f"{template!r}: conversion !{conversion} in {{{field}}} is not accepted", hint=fix)
        if not _SPEC.fullmatch(spec or ""):
            raise SchemaValueError(
                f"{template!r}: format {spec!r} of {{{field}}} is not accepted",
                hint=f"write {{{field}}} or a zero-padded width such as {{{field}:02d}} (at most 9 digits)",
            )
    return template


def template_field(fields: tuple[str, ...]) -> Any:
    """A field validator, `field_validator("naming")(template_field(("index",)))`: the template uses only
    `fields` and yields hostnames."""

    def check(cls: type, v: str) -> str:
        return check_template(v, fields)

    return classmethod(check)


def is_hostname(name: str) -> bool:
    return HOSTNAME.fullmatch(name) is not None


_LABEL_VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$")


def label_value_ok(value: str) -> bool:
    """A valid Kubernetes label value (IsValidLabelValue: <= 63 chars, alphanumerics with -_. inside)."""
    return bool(_LABEL_VALUE.fullmatch(value))


def dns_label_ok(value: str) -> bool:
    """A valid DNS label (RFC 1123: Kubernetes object names)."""
    return len(value) <= 63 and bool(re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", value))
