"""`netauto render` after a device-local edit (`netauto.render.edits`): the last render's state
(`netauto.render.store`) patched, the changed devices rendered and rewritten through the update journal.

The counterpart of `pipeline.render_files` for a drain: no load through the schema, no resolve, no key of an
unchanged device. It imports neither the inventory schema nor pydantic (the model's types, Jinja2 and the
output writer only), so `netauto.cli.quick` answers in a fraction of the full command's start-up.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from netauto.errors import NetautoError
from netauto.inventory.files import read_merged
from netauto.model.types import Switch
from netauto.render import edits, incremental, journal, output, store
from netauto.render.incremental import Keyed
from netauto.render.output import WriteStats
from netauto.render.fingerprint import manifest_of

if TYPE_CHECKING:
    from netauto.inventory.loader import LoadedInventory
    from netauto.model.cluster import ClusterModel


def keep_render_state(loaded: LoadedInventory, cluster: ClusterModel, keyed: Keyed, target: Path, fingerprint: str,
                      code: str, templates: Path | None, summary: dict[str, Any]) -> None:
    """Keep what the tree just written at `target` was made of (`netauto.render.store`), for `rerender_edit`."""
    from netauto.model.consistency import override_drained  # lazy: the drain fast path imports this module without the inventory schema

    facts = {**edits.drain_facts(cluster, override_drained(loaded.inventory)), "summary": summary,
             "inventory": str(loaded.root.resolve()), "templates": str(templates.resolve()) if templates else ""}
    store.save(target, fingerprint, code, loaded.data, keyed, facts)


@dataclass
class Rerendered:
    stats: WriteStats
    summary: dict[str, Any]  # what `keep_render_state` was given


def rerender_edit(inventory: Path, templates: Path | None, target: Path, fingerprint: str,
                  code: str) -> Rerendered | None:
    """`netauto render` after an edit of the kinds in `netauto.render.edits`: only the devices it changes are
    re-resolved (their objects of the last render patched), rendered and rewritten (journaled); their keys and
    the state are updated. None, with nothing written, for anything else (another edit, input the full path
    refuses, no state for the tree that is there, a file edited by hand, changed code): the full path runs.
    `code`: `fingerprint.code_digest(templates)`, which `fingerprint` covers."""
    try:
        manifest = manifest_of(target)  # parsed already when `tree_matches` said the tree is not current
    except (OSError, ValueError):
        return None
    current = manifest.get("fingerprint") if isinstance(manifest, dict) else None
    if (not isinstance(current, str) or not isinstance(manifest.get("files"), dict)
            or output.changed_files(target, manifest)):
        return None
    state, keys = store.load(target, current), incremental.load_keys(target, current)
    if state is None or not keys or state.index["code"] != code:
        return None
    facts = state.facts
    if (facts.get("inventory") != str(inventory.resolve())
            or facts.get("templates") != (str(templates.resolve()) if templates else "")):
        return None
    try:
        data, _ = read_merged(inventory)
    except NetautoError:
        return None
    edit = edits.edit_of(state.raw(), data, facts)
    if edit is None or edit.touches:
        return None
    switches: list[Switch] = []
    changed: dict[str, list[incremental.Part]] = {}
    for name, patch in edit.patches.items():
        parts = state.parts(name)
        if parts is None or [(p.label, p.kind) for p in parts] != [("compute", "switch")]:
            return None
        switch = pickle.loads(parts[0].payload)
        patch(switch)
        switches.append(switch)
        changed[name] = [replace(parts[0], payload=pickle.dumps(switch, protocol=5))]
    settings = state.settings("compute")
    if settings is None:
        return None
    try:
        artifacts = incremental.render_switches(pickle.loads(settings), switches, templates)
    except incremental.NeedsWholeFabric:
        return None
    stats = journal.update_tree(artifacts, set(changed), target, fingerprint, current)
    if stats is None:
        return None
    keys.update({name: incremental.device_key(parts) for name, parts in changed.items()})
    incremental.save_keys(target, fingerprint, keys)
    store.update(state, fingerprint, data, changed, edit.facts)
    return Rerendered(stats, dict(facts["summary"]))
