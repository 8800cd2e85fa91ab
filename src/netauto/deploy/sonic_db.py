"""What netauto owns in a SONiC switch's config_db.json, and the file the switch must end up with.

A real switch's config_db holds more than netauto renders: tables the image writes (FEATURE,
VERSIONS, counter groups of FLEX_COUNTER_TABLE...), DEVICE_METADATA fields from the platform (mac...), and PORT entries
for front-panel ports the fabric does not use. Pushing the rendered file verbatim would wipe them, and
`config replace` (SONiC's generic config updater) wants the whole config as its target. So the target is
the switch's current config with netauto's parts replaced:

* every table the intent renders is owned wholesale: entries the intent no longer has are removed;
* except PORT, BREAKOUT_CFG and the per-port buffer profile lists, where only the intent's entries are owned:
  deleting a PORT entry removes the port from SONiC, so unused ports stay as the switch has them, with the
  SKU's zero profiles their BUFFER_PORT_*_PROFILE_LIST entries name;
* and DEVICE_METADATA and FLEX_COUNTER_TABLE, owned field by field (the intent's hostname, bgp_asn, type... but
  not the mac; the status and POLL_INTERVAL of the counter groups netauto renders, not the image's other groups
  or their FLEX_COUNTER_DELAY_STATUS).

Entries the switch keeps point into tables netauto owns (YANG leafrefs): a switch booted with its SKU's
buffer templates has BUFFER_PORT_INGRESS/EGRESS_PROFILE_LIST entries for its unused ports naming the zero
profiles (`ingress_lossless_zero_profile`...), which netauto's BUFFER_PROFILE does not render. Dropping them
would make the target fail the YANG validation GCU runs first, so every entry a kept entry references is kept
too, taken from the switch (`REFERENCES`, transitively: a kept profile keeps its pool).

A port breakout (BREAKOUT_CFG mode, or a PORT entry whose lanes differ / that does not exist yet) is not
something `config replace` may do (`breakout_changes`): deploy runs Dynamic Port Breakout for it first
(netauto.deploy.sonic_breakout) and refuses a target that still changes lanes (netauto.deploy.sonic_preflight).

The file is written as `config save` writes it (sorted keys, 4-space indent), so a dry-run diff against
the switch's saved config_db.json shows only what netauto changes.
"""

from __future__ import annotations

import json
from typing import Any

from netauto.formats import device_json

# Owned entry by entry: PORT and BREAKOUT_CFG (deleting a port's entry removes the port; BREAKOUT_CFG: netauto
# renders every cage), and the per-port buffer profile lists (netauto renders them for its active ports; the
# ports it does not use keep the SKU's zero profiles their lists name)
ENTRY_OWNED = frozenset({"PORT", "BREAKOUT_CFG", "BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST"})
# FLEX_COUNTER_TABLE: netauto sets the status and interval of the groups it renders; the groups and fields the
# image writes (RIF, DEBUG_COUNTER, FLEX_COUNTER_DELAY_STATUS...) stay as the switch has them
FIELD_OWNED = frozenset({"DEVICE_METADATA", "FLEX_COUNTER_TABLE"})

Config = dict[str, dict[str, Any]]

# (table, field, referenced table): the leafrefs between config_db tables that matter when netauto owns one side.
# Sources, SONiC YANG models (sonic-buildimage src/sonic-yang-models/yang-models, snapshot 086b03bd):
# sonic-buffer-port-ingress-profile-list.yang / -egress-: profile_list -> BUFFER_PROFILE; sonic-buffer-pg.yang,
# sonic-buffer-queue.yang: profile -> BUFFER_PROFILE; sonic-buffer-profile.yang: pool -> BUFFER_POOL;
# sonic-queue.yang: scheduler -> SCHEDULER, wred_profile -> WRED_PROFILE; sonic-port-qos-map.yang: the map
# names -> their map tables, scheduler -> SCHEDULER.
REFERENCES: tuple[tuple[str, str, str], ...] = (
    ("BUFFER_PORT_INGRESS_PROFILE_LIST", "profile_list", "BUFFER_PROFILE"),
    ("BUFFER_PORT_EGRESS_PROFILE_LIST", "profile_list", "BUFFER_PROFILE"),
    ("BUFFER_PG", "profile", "BUFFER_PROFILE"),
    ("BUFFER_QUEUE", "profile", "BUFFER_PROFILE"),
    ("BUFFER_PROFILE", "pool", "BUFFER_POOL"),
    ("QUEUE", "scheduler", "SCHEDULER"),
    ("QUEUE", "wred_profile", "WRED_PROFILE"),
    ("PORT_QOS_MAP", "dscp_to_tc_map", "DSCP_TO_TC_MAP"),
    ("PORT_QOS_MAP", "tc_to_queue_map", "TC_TO_QUEUE_MAP"),
    ("PORT_QOS_MAP", "tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP"),
    ("PORT_QOS_MAP", "pfc_to_queue_map", "MAP_PFC_PRIORITY_TO_QUEUE"),
    ("PORT_QOS_MAP", "pfc_to_pg_map", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"),
    ("PORT_QOS_MAP", "scheduler", "SCHEDULER"),
)


def dumps(config: Config) -> bytes:
    return (json.dumps(config, sort_keys=True, indent=4) + "\n").encode()


def _replaced(running: Config, intent: Config) -> Config:
    """`running` with every part netauto owns taken from `intent` (before the references are closed)."""
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
            out[table] = dict(entries)
    return out


def _names(value: Any) -> list[str]:
    """A reference field's names: "a,b" (a leaf-list as sonic-cfggen writes it), a list, or one name."""
    values = value if isinstance(value, list) else str(value).split(",")
    return [v.strip() for v in values if str(v).strip() and str(v).strip() != "NULL"]


def kept_references(config: Config, running: Config) -> list[str]:
    """Close `config` under REFERENCES from `running`, in place: every entry some entry names that `config`
    lacks and `running` has is copied over (transitively). Returns the `TABLE|key`s kept that way."""
    kept: list[str] = []
    changed = True
    while changed:
        changed = False
        for table, field, ref in REFERENCES:
            for fields in list((config.get(table) or {}).values()):
                for name in _names(fields.get(field, "")) if isinstance(fields, dict) else []:
                    have = config.setdefault(ref, {})
                    source = running.get(ref) or {}
                    if name not in have and name in source:
                        have[name] = source[name]
                        kept.append(f"{ref}|{name}")
                        changed = True
    return sorted(set(kept))


def target_config(running: Config, intent: Config) -> Config:
    """The whole config the switch must have: `running` with every part netauto owns taken from `intent`,
    plus the running entries that the kept tables still reference (kept_references)."""
    out = _replaced(running, intent)
    kept_references(out, running)
    return out


def breakout_changes(running: Config, intent: Config) -> list[str]:
    """The ports whose breakout the intent changes: a cage's BREAKOUT_CFG mode differs, or an intent PORT is
    new on the switch or sits on other lanes. Empty: no breakout change."""
    out = []
    have_cfg, want_cfg = running.get("BREAKOUT_CFG") or {}, intent.get("BREAKOUT_CFG") or {}
    for port in sorted(want_cfg, key=_port_order):
        mode = (want_cfg[port] or {}).get("brkout_mode")
        now = (have_cfg.get(port) or {}).get("brkout_mode")
        if have_cfg and mode != now:
            out.append(f"{port}: breakout {now or 'none'} -> {mode}")
    have_ports = running.get("PORT") or {}
    for port in sorted(intent.get("PORT") or {}, key=_port_order):
        lanes = (intent["PORT"][port] or {}).get("lanes")
        if port not in have_ports:
            out.append(f"{port}: not a port of the switch (lanes {lanes})")
        elif lanes is not None and (have_ports[port] or {}).get("lanes") != lanes:
            out.append(f"{port}: lanes {(have_ports[port] or {}).get('lanes')} -> {lanes}")
    return out


def _port_order(name: str) -> tuple[str, int]:
    digits = name.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-")
    return (name[: len(name) - len(digits)], int(digits) if digits.isdigit() else -1)


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
    """`TABLE|key` for every owned entry that differs from the intent (empty: the switch has the intent).
    Entries kept because the switch's own tables reference them (kept_references) are part of the intent."""
    want_config = target_config(config, intent)
    have, want = owned(config, intent), owned(want_config, intent)
    out = []
    for table in sorted(want):
        keys = set(want[table]) | set(have.get(table, {}))
        out += [f"{table}|{k}" for k in sorted(keys) if have.get(table, {}).get(k) != want[table].get(k)]
    return out


def is_config(doc: object) -> bool:
    """`doc` has CONFIG_DB's shape: table name -> key -> an object of fields (what every reader here indexes). A
    switch's file or `sonic-cfggen -d --print-data` of another shape (a list, a table that is a string) is
    unreadable, not an AttributeError in the middle of a push."""
    return isinstance(doc, dict) and all(isinstance(t, dict) and all(isinstance(e, dict) for e in t.values())
                                         for t in doc.values())


def expected_file(running: bytes | None, intent: str) -> bytes:
    """The config_db.json the switch must hold, given what it holds now (the intent if unreadable/absent)."""
    if running is None:
        return intent.encode()
    try:
        current = device_json.loads(running)  # the device's file: deep nesting is a ValueError too
    except ValueError:
        return intent.encode()
    if not is_config(current):
        return intent.encode()
    return dumps(target_config(current, json.loads(intent)))
