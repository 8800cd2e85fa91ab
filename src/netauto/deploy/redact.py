"""Netauto's one redaction rule: secrets a device holds never reach output, results, drift reports, backups or logs.

A device can carry secrets netauto never rendered (a hand-added `neighbor swp33 password ...`, an SNMP
community, a TACACS key in NVUE's startup.yaml or SONiC's config_db.json). Each syntax below names where its
secret token is; only that token becomes <redacted>, never its neighbour (`key chain KC1` and `key 1` stay,
`ip ospf authentication message-digest` stays). Works line by line on plain text and on unified diffs.

Sources of the syntaxes (the CLI reference of each daemon):
* FRR (docs.frrouting.org): bgpd `neighbor PEER password PASSWORD`; lib keychain `key chain WORD`, `key (0-..)`,
  `key-string LINE`; ospfd `ip ospf authentication-key AUTH_KEY`, `ip ospf message-digest-key KEYID md5 KEY`
  (also on `area A virtual-link B`); ospf6d `ipv6 ospf6 authentication key-id (1-65535) hash-algo ALGO key WORD`;
  isisd `area-password|domain-password [clear|md5] WORD`, `isis password [clear|md5] WORD`; ripd
  `ip rip authentication string LINE`; ldpd `neighbor A.B.C.D password WORD`; vtysh `[enable] password [8] WORD`
  (8: `service password-encryption`).
* net-snmp snmpd.conf(5): `rocommunity|rwcommunity[6] COMMUNITY [SOURCE]`, `com2sec[6] [-Cn CTX] NAME SOURCE
  COMMUNITY`, `createUser NAME (MD5|SHA) AUTHPASS [DES|AES PRIVPASS]`; trapsink/trap2sink/informsink `HOST
  COMMUNITY`.
* NVUE (Cumulus Linux 5.x `nv set` and startup.yaml): `service snmp-server readonly-community|readwrite-community
  [-v6] COMMUNITY` (in YAML the community is the KEY under `readonly-community:`); leaves `password`, `secret`,
  `key`, `community-password` (system aaa tacacs/radius server, router bgp neighbor).
* TACACS/RADIUS: Cumulus /etc/tacplus_servers `secret=KEY`; SONiC config_db TACPLUS/RADIUS(_SERVER) `passkey`,
  `config tacacs|radius passkey KEY`; SONiC SNMP_COMMUNITY (sonic-snmp.yang: the community is the entry's key).
* SSH private keys: everything between `-----BEGIN ... PRIVATE KEY-----` and its END line.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator

MASK = "<redacted>"

# one regex per CLI/config syntax; every named group s, s2 is a secret token (nothing else is replaced)
_LINE_RULES = tuple(re.compile(p, re.IGNORECASE) for p in (
    r"\b(?:enable\s+)?password\s+(?:(?:clear|md5|[078])\s+)?(?P<s>[^\s\"',;]+)",  # also area-/domain-password
    r"\bkey-string\s+(?P<s>\S+)",
    r"\bauthentication-key\s+(?P<s>\S+)",
    r"\bmessage-digest-key\s+\d+\s+md5\s+(?P<s>\S+)",
    r"\bhash-algo\s+\S+\s+key\s+(?P<s>\S+)",
    r"\bauthentication\s+string\s+(?P<s>\S+)",
    r"^\s*(?:ro|rw)community6?\s+(?P<s>\S+)",
    r"^\s*com2sec6?\s+(?:-Cn\s+\S+\s+)?\S+\s+\S+\s+(?P<s>\S+)",
    r"^\s*(?:trapsink|trap2sink|informsink)\s+\S+\s+(?P<s>\S+)",
    r"^\s*createUser\s+(?:-e\s+\S+\s+)?\S+\s+\S+\s+(?P<s>\S+)(?:\s+\S+\s+(?P<s2>\S+))?",
    r"\bsnmp-server\s+community\s+(?P<s>\S+)",
    r"\b(?:readonly|readwrite)-community(?:-v6)?\s+(?P<s>[^\s:]\S*)",
    r"\bcommunity-password\s+(?P<s>\S+)",
    r"\b(?:secret|passkey)\s+(?P<s>\S+)",
    # YAML / JSON / key=value leaves: "password": "x", secret: x, passkey=x, key: x (never bare `key 1`)
    r"[\"']?\b(?:password|passwd|passphrase|secret|passkey|key|auth-key|psk|pre-shared-key|community-password|"
    r"key-string|authentication-key)[\"']?\s*[:=]\s*(?:\"(?P<s>[^\"]*)\"|'(?P<s2>[^']*)'|(?P<s3>[^\s,;{}\"']+))",
))
# a container whose children's KEYS are secrets (NVUE startup.yaml, SONiC config_db.json)
_KEYED = re.compile(r"^[\"']?(?:readonly-community|readwrite-community|readonly-community-v6|"
                    r"readwrite-community-v6|SNMP_COMMUNITY)[\"']?\s*:\s*\{?\s*$", re.IGNORECASE)
_CHILD_KEY = re.compile(r"^(?P<q>[\"']?)(?P<s>[^\"':\s]+)(?P=q)\s*:")
_KEYED_INLINE = re.compile(r"\"SNMP_COMMUNITY\"\s*:\s*\{", re.IGNORECASE)
_PEM_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----")
_PEM_END = re.compile(r"-----END [A-Z0-9 ]*PRIVATE KEY-----")
_DIFF_MARK = "+- "


def _mask_groups(match: re.Match[str]) -> str:
    text, base = match.group(0), match.start()
    spans = sorted(match.span(g) for g in match.re.groupindex if g.startswith("s") and match.group(g) is not None)
    out, pos = [], 0
    for start, end in spans:
        out += [text[pos:start - base], MASK]
        pos = end - base
    return "".join(out) + text[pos:]


def _split(line: str) -> tuple[str, str, int]:
    """(diff marker or '', body, indent of the body)."""
    mark = line[0] if line[:1] in ("+", "-") and not line.startswith(("+++", "---")) else ""
    body = line[len(mark):]
    return mark, body, len(body) - len(body.lstrip(" "))


def _inline_keyed(line: str) -> str:
    """`"SNMP_COMMUNITY": {"public": {...}, "x": {...}}` on one line: every key at depth one."""
    spans: list[tuple[int, int]] = []
    for match in _KEYED_INLINE.finditer(line):
        depth, i = 1, match.end()
        while i < len(line) and depth:
            if line[i] == '"':
                end = line.find('"', i + 1)
                if end < 0:
                    break
                if depth == 1 and line[end + 1:].lstrip().startswith(":"):
                    spans.append((i + 1, end))
                i = end
            elif line[i] in "{}":
                depth += 1 if line[i] == "{" else -1
            i += 1
    for start, end in reversed(spans):
        line = line[:start] + MASK + line[end:]
    return line


def redact_line(line: str) -> str:
    mark, body, _ = _split(line)
    for rule in _LINE_RULES:
        body = rule.sub(_mask_groups, body)
    return mark + _inline_keyed(body)


def _lines(text: str) -> Iterator[str]:
    keyed: int | None = None  # indent of an open secret-keyed container
    child: int | None = None  # indent of its children (the first deeper line)
    in_pem = False
    for line in text.splitlines(True):
        mark, body, indent = _split(line)
        stripped = body.strip()
        if in_pem:
            if _PEM_END.search(body):
                in_pem = False
                yield line
            else:
                yield mark + MASK + ("\n" if line.endswith("\n") else "")
            continue
        if _PEM_BEGIN.search(body):
            in_pem = not _PEM_END.search(body)
            yield redact_line(line)
            continue
        if keyed is not None and stripped:
            if indent <= keyed:
                keyed = child = None
            else:
                child = indent if child is None else child
                if abs(indent - child) <= 1:
                    found = _CHILD_KEY.match(body.lstrip(" "))
                    if found:
                        start = len(mark) + indent + found.start("s")
                        line = line[:start] + MASK + line[len(mark) + indent + found.end("s"):]
                yield redact_line(line)
                continue
        if _KEYED.match(stripped):
            keyed, child = indent, None
        yield redact_line(line)


def redact(text: str) -> str:
    """`text` with every secret token of the syntaxes above replaced by <redacted>."""
    return "".join(_lines(text))


def unified_diff(old: str, new: str, fromfile: str, tofile: str) -> str:
    """A unified diff of `old` -> `new` whose lines are shown redacted. Each side is redacted whole before the
    hunks are cut (a secret-keyed block's header may lie outside a hunk's context), while the lines are compared
    as they are, so a changed secret still shows as a -/+ pair of <redacted> lines."""
    a, b = old.splitlines(True), new.splitlines(True)
    shown_a, shown_b = redact(old).splitlines(True), redact(new).splitlines(True)
    if len(shown_a) != len(a) or len(shown_b) != len(b):  # never: redaction keeps lines; but never leak
        shown_a, shown_b = [redact(x) for x in a], [redact(x) for x in b]
    out: list[str] = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(3):
        if not out:
            out += [f"--- {fromfile}\n", f"+++ {tofile}\n"]
        (_, i1, _, j1, _), (_, _, i2, _, j2) = group[0], group[-1]
        out.append(f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@\n")
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                out += [" " + line for line in shown_a[x1:x2]]
                continue
            out += ["-" + line for line in shown_a[x1:x2]] + ["+" + line for line in shown_b[y1:y2]]
    return "".join(out)


def _range(start: int, stop: int) -> str:
    """difflib's hunk range: `start,length` (1-based; `start` alone for one line, `start-1,0` for none)."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if not length else start + 1},{length}"
