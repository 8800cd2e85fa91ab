"""What netauto owns in a SONiC switch's config_db.json, and the file the switch must end up with.

A real switch's config_db holds more than netauto renders: tables the image writes (FEATURE,
FLEX_COUNTER_TABLE, VERSIONS...), DEVICE_METADATA fields from the platform (mac...), and PORT entries
for front-panel ports the fabric does not use. Pushing the rendered file verbatim would wipe them, and
`config replace` (SONiC's generic config updater) wants the whole config as its target. So the target is
the switch's current config with netauto's parts replaced:

* every table the intent renders is owned wholesale: entries the intent no longer has are removed;
* except PORT, where only the intent's ports are owned: deleting a PORT entry removes the port from
  SONiC, so unused ports stay as the switch has them;
* and DEVICE_METADATA, owned field by field (the intent's hostname, bgp_asn, type... but not the mac).

The file is written as `config save` writes it (sorted keys, 4-space indent), so a dry-run diff against
the switch's saved config_db.json shows only what netauto changes.
"""

from __future__ import annotations

import json
from typing import Any

ENTRY_OWNED = frozenset({"PORT", "BREAKOUT_CFG"})  # BREAKOUT_CFG: one entry per cage, unused cages stay
FIELD_OWNED = frozenset({"DEVICE_METADATA"})

Config = dict[str, dict[str, Any]]


def dumps(config: Config) -> bytes:
    return (json.dumps(config, sort_keys=True, indent=4) + "\n").encode()


def target_config(running: Config, intent: Config) -> Config:
    """The whole config the switch must have: `running` with every part netauto owns taken from `intent`."""
    out = {table: entries for table, entries in running.items() if table not in intent}
    for table, entries in intent.items():
        current = running.get(table, {}) if isinstance(running.get(table), dict) else {}
        if table in FIELD_OWNED:
            merged = dict(current)
            for key, fields in entries.items():
                have = current.get(key)
                merged[key] = {**(have if isinstance(have, dict) else {}), **fields}
            out[table] = merged
        elif table in ENTRY_OWNED:
            out[table] = {**current, **entries}
        else:
            out[table] = entries
    return out


def owned(config: Config, intent: Config) -> Config:
    """The parts of `config` netauto owns (what must equal the intent after a push)."""
    view: Config = {}
    for table, entries in intent.items():
        have = config.get(table, {}) if isinstance(config.get(table), dict) else {}
        if table in FIELD_OWNED:
            view[table] = {k: {f: (have.get(k) or {}).get(f) for f in fields} for k, fields in entries.items()}
        elif table in ENTRY_OWNED:
            view[table] = {k: have.get(k) for k in entries}
        else:
            view[table] = have
    return view


def differences(config: Config, intent: Config) -> list[str]:
    """`TABLE|key` for every owned entry that differs from the intent (empty: the switch has the intent)."""
    have, want = owned(config, intent), owned(intent, intent)
    out = []
    for table in sorted(want):
        keys = set(want[table]) | set(have.get(table, {}))
        out += [f"{table}|{k}" for k in sorted(keys) if have.get(table, {}).get(k) != want[table].get(k)]
    return out


def expected_file(running: bytes | None, intent: str) -> bytes:
    """The config_db.json the switch must hold, given what it holds now (the intent if unreadable/absent)."""
    if running is None:
        return intent.encode()
    try:
        current = json.loads(running)
    except ValueError:
        return intent.encode()
    if not isinstance(current, dict):
        return intent.encode()
    return dumps(target_config(current, json.loads(intent)))
