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


def _tok(name: str) -> str:
    """A secret token as the daemons read it, in every spelling a file or `show running-config` may hold.

    FRR's command lexer splits a line at spaces and tabs only (and CR: FRR 8.4 `vtysh --dryrun` refuses
    `password ab<CR>cd` as two tokens, but accepts `password ab<VT>cd`, `<FF>`, `<FS>`, U+0085 and U+2028 inside
    ONE token, and `'x'`, `,x`, `a;b`, `a!b`, `a#b`, `"a` as the whole WORD: nothing in FRR's grammar quotes).
    So the token runs to the next space, tab or newline, whatever else it holds, and a token that starts with a
    quote (NVUE's shell-quoted `nv set ... password "two words"`, or a hand-edited file FRR would refuse) runs
    to its closing quote or the end of the line: the whole of it goes, never only its first word."""
    # (an unquoted token never starts with `:` or `=`: `password : x` is a YAML leaf, the last rule's)
    return rf"(?:\"(?P<{name}q>[^\"\n]*)\"?|'(?P<{name}a>[^'\n]*)'?|(?P<{name}>[^ \t\n\"':=][^ \t\n]*))"


S, S2 = _tok("s"), _tok("s2")
# one regex per CLI/config syntax; every named group s* is (part of) a secret token (nothing else is replaced)
_LINE_RULES = tuple(re.compile(p, re.IGNORECASE) for p in (
    rf"\b(?:enable\s+)?password\s+(?:(?:clear|md5|[078])\s+)?{S}",  # also area-/domain-password
    rf"\bkey-string\s+{S}",
    rf"\bauthentication-key\s+{S}",
    rf"\bmessage-digest-key\s+\d+\s+md5\s+{S}",
    rf"\bhash-algo\s+\S+\s+key\s+{S}",
    rf"\bauthentication\s+string\s+{S}",
    rf"^\s*(?:ro|rw)community6?\s+{S}",
    rf"^\s*com2sec6?\s+(?:-Cn\s+\S+\s+)?\S+\s+\S+\s+{S}",
    rf"^\s*(?:trapsink|trap2sink|informsink)\s+\S+\s+{S}",
    rf"^\s*createUser\s+(?:-e\s+\S+\s+)?\S+\s+\S+\s+{S}(?:\s+\S+\s+{S2})?",
    rf"\bsnmp-server\s+community\s+{S}",
    rf"\b(?:readonly|readwrite)-community(?:-v6)?\s+{S}",
    rf"\bcommunity-password\s+{S}",
    rf"\b(?:secret|passkey)\s+{S}",
    # YAML / JSON / key=value leaves: "password": "x", secret: x, passkey=x, key: x (never bare `key 1`). A JSON
    # string keeps its escaped quotes, a YAML single-quoted one its doubled quotes, and an unquoted value (a YAML
    # plain scalar may hold spaces) runs to the end of the line, less trailing flow punctuation or a # comment.
    r"[\"']?\b(?:password|passwd|passphrase|secret|passkey|key|auth-key|psk|pre-shared-key|community-password|"
    r"key-string|authentication-key)[\"']?\s*[:=][ \t]*(?:\"(?P<s>(?:[^\"\\\n]|\\.)*)\"?|'(?P<s2>(?:[^'\n]|'')*)'?|"
    r"(?P<s3>[^\s{}\[\]\"'#][^\n]*?)(?=[ \t]*[,}\]]*[ \t]*\r?$|[ \t]+#))",
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


def lines(text: str) -> list[str]:
    r"""`text` cut at "\n" only, each line with its end. Not str.splitlines: that also cuts at \r, \v, \f,
    \x1c-\x1e, U+0085, U+2028 and U+2029, which FRR keeps inside a token (`password ab<VT>cd` is ONE password
    to vtysh), so a rule would see `ab` and leave `cd` on a "line" of its own."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _lines(text: str) -> Iterator[str]:
    keyed: int | None = None  # indent of an open secret-keyed container
    child: int | None = None  # indent of its children (the first deeper line)
    in_pem = False
    for line in lines(text):
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
    a, b = lines(old), lines(new)
    shown_a, shown_b = lines(redact(old)), lines(redact(new))
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
