"""Secrets a device holds never reach deploy's output: diffs, the table, error messages or the results file.

A device can carry secrets netauto never rendered (a hand-added `neighbor swp33 password ...`, an SNMP
community, a TACACS key in NVUE's startup.yaml or SONiC's config_db.json). Every line that names one keeps
its keyword and loses its value, in FRR/ifupdown (`password X`), YAML (`password: X`) and JSON
(`"password": "X"`) spellings alike.
"""

from __future__ import annotations

import re

MASK = "<redacted>"
# `community` alone is a BGP community (`set community 65000:1`, not secret): only SNMP's spellings count
_WORDS = (r"password|passwd|passphrase|passkey|secret|key|auth-key|psk|token|pre-shared-key|"
          r"snmp-server\s+community|(?:ro|rw)community6?|readonly-community|community-string")
# the keyword as a word, an optional closing quote, a separator (space, `:`, `=`), then the value
_SECRET = re.compile(rf"(?i)(\b(?:{_WORDS})\b[\"']?(?:\s*[:=]\s*|\s+)(?:\d\s+)?)(\"[^\"]*\"|'[^']*'|[^\s,;]+)")


def redact(text: str) -> str:
    """`text` with the value after every secret keyword replaced by <redacted>."""
    return _SECRET.sub(lambda m: m.group(1) + MASK, text)
