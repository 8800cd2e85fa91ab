"""`--limit`: which devices a deploy touches, in the pattern language of Ansible and Nornir users.

    spine1,su1-r0-leaf      union (`,` or `:` separate terms, as in Ansible)
    su1-*                   glob over device names (also group names: role_*)
    role_leaf  su_1         groups: switches, servers, role_<role>, nos_<nos>, su_<n>, pod_<n>, network_<name>
    network_storage         a network of a cluster (compute, storage, frontend): its switches and the servers
                            attached to it (they hold its files); network_storage,&switches: its switches only
    role=leaf  nos=sonic    the same groups as key=value (value may be a glob: role=*spine)
    su_1,&role=leaf         `&` intersects: leaves of SU 1
    switches,!spine1        `!` excludes; a pattern of exclusions only starts from every device

Terms are order-independent (Ansible's rule): union of the plain terms, then each `&`, then each `!`.
A term that matches nothing is an error with the close matches (a typo must not silently shrink a push).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping

from netauto.errors import UsageError, did_you_mean

GROUP_KEYS = ("role", "nos", "su", "pod", "kind", "network")
_KIND_GROUP = {"switch": "switches", "switches": "switches", "server": "servers", "servers": "servers"}


def groups_for(kind: str, role: str, nos: str, su: int | None = None, pod: int | None = None,
               networks: Iterable[str] = ()) -> list[str]:
    """A device's groups (the Nornir inventory's groups and the Ansible export's, by the same names).
    `networks`: the cluster networks the device is on (network_compute, network_storage...); su_/pod_ are the
    compute fabric's scalable units and pods only."""
    names = ["switches" if kind == "switch" else "servers", f"role_{role}", f"nos_{nos}"]
    if su is not None:
        names.append(f"su_{su}")
    if pod:
        names.append(f"pod_{pod}")
    names += [f"network_{n}" for n in networks]
    return names


def host_groups(device: object) -> list[str]:
    """groups_for a model Switch or Server."""
    role = getattr(device, "role", None)
    if role is None:  # a Server
        return groups_for("server", "server", "linux", getattr(device, "su", None))
    return groups_for("switch", str(role), str(getattr(device, "nos", "")), getattr(device, "su", None),
                      getattr(device, "pod", None))


def _term_pattern(word: str) -> str:
    """`role=leaf` -> `role_leaf`, `kind=switch` -> `switches`; anything else as it is."""
    key, eq, value = word.partition("=")
    if not eq:
        return word
    key = key.strip().lower()
    if key not in GROUP_KEYS:
        raise UsageError(f"--limit {word!r}: unknown key {key!r} (keys: {', '.join(GROUP_KEYS)})")
    if key == "kind":
        return _KIND_GROUP.get(value.strip().lower(), f"kind_{value}")
    return f"{key}_{value.strip()}"


def _matches(pattern: str, name: str, groups: Iterable[str]) -> bool:
    return fnmatch.fnmatchcase(name, pattern) or any(fnmatch.fnmatchcase(g, pattern) for g in groups)


def select(members: Mapping[str, Iterable[str]], limit: str | None) -> list[str]:
    """The devices of `members` (name -> its groups, in deploy order) that `limit` selects, in that order."""
    names = list(members)
    if not limit or not limit.strip():
        return names
    groups = {n: list(g) for n, g in members.items()}
    union: set[str] = set()
    plain = False
    intersect: list[set[str]] = []
    exclude: set[str] = set()
    for raw in re.split(r"[,:]", limit):
        term = raw.strip()
        if not term:
            continue
        op = term[0] if term[0] in "&!" else ""
        word = term[len(op):].strip()
        if not word:
            raise UsageError(f"--limit {limit!r}: {op!r} needs a device or group after it")
        pattern = _term_pattern(word)
        hits = {n for n in names if _matches(pattern, n, groups[n])}
        if not hits:
            vocabulary = sorted({*names, *(g for gs in groups.values() for g in gs)})
            raise UsageError(
                f"--limit {term!r} matches no device or group{did_you_mean(pattern, vocabulary)} "
                f"(groups: switches, servers, role_<role>, nos_<nos>, su_<n>, pod_<n>, network_<name>; or role=leaf, "
                f"nos=sonic...)")
        if op == "&":
            intersect.append(hits)
        elif op == "!":
            exclude |= hits
        else:
            plain = True
            union |= hits
    chosen = union if plain else set(names)
    for hits in intersect:
        chosen &= hits
    chosen -= exclude
    if not chosen:
        raise UsageError(f"--limit {limit!r} leaves no device (the intersections and exclusions remove them all)")
    return [n for n in names if n in chosen]
