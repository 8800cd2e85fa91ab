"""One `netauto render` of an inventory into OUTPUT/<fabric>: the session that owns the fingerprint
(render.fingerprint), the device keys (render.incremental), the kept state (render.store through render.local_edit),
the journaled update (render.journal) and the whole-tree render on the fork pool (`render_tree` -> render.pool).
It is handed the loaded inventory and the resolved cluster: loading and resolving are the pipeline's steps
(netauto.pipeline.render_session, render_into), so render imports nothing above it. The CLI opens one, asks
whether the tree is current, renders, and prints what it returns.

    session = pipeline.render_session(inventory, output, templates)
    if not session.current():
        summary, stats = pipeline.render_into(session, progress)

A render rewrites only the devices whose key changed when few did (`INCREMENTAL_MAX_SHARE`), journaled, all or
nothing; else the whole tree, swapped in one atomic step. Either way it keeps the keys and the state the next
run's fast paths read (`netauto.cli.quick`: nothing changed, or only drains).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from netauto.errors import OutputError
from netauto.inventory.loader import LoadedInventory
from netauto.model.cluster import ClusterModel
from netauto.monitoring import facts
from netauto.render import incremental, local_edit
from netauto.render.engine import render_cluster, write_cluster
from netauto.render.journal import update_tree
from netauto.render.output import Row, WriteStats, build_tree, changed_files, read_manifest, remove_dead
from netauto.render.fingerprint import code_digest, remember_target, render_fingerprint, tree_matches

__all__ = ["INCREMENTAL_MAX_SHARE", "Progress", "RenderSession", "free_output", "render_summary", "render_tree"]

INCREMENTAL_MAX_SHARE = 0.25  # more devices changed than this: render and swap the whole tree (one atomic step)

# devices -> a pass-through over the written files' rows (a progress bar); the session never prints
Progress = Callable[[int], Callable[[Iterable[Row]], Iterable[Row]]]


def render_summary(cluster: ClusterModel) -> dict[str, Any]:
    """What the "rendered ..." line counts (kept with the render's state for `netauto.cli.quick`)."""
    return {"name": cluster.compute.name, "networks": len(cluster.networks), "switches": len(cluster.all_switches()),
            "oob": len(cluster.oob.switches) if cluster.oob else 0, "servers": len(cluster.server_names())}


def _holds_inventory(inventory: Path, output: Path, fabric: str) -> bool:
    """OUTPUT/<fabric> is the inventory's folder or one above it (a render would replace the inventory's folder)."""
    inv, target = inventory.resolve(), (output / fabric).resolve()
    return inv == target or target in inv.parents


def free_output(inventory: Path, output: Path, fabric: str) -> Path:
    """`output` when OUTPUT/<fabric> leaves the inventory alone, else OUTPUT/rendered (what `netauto init`'s next
    line and the render's refusal propose: `init build/myfabric/inventory` then `-o build` would collide)."""
    return output / "rendered" if _holds_inventory(inventory, output, fabric) else output


@dataclass
class RenderSession:
    inventory: Path
    output: Path
    templates: Path | None
    loaded: LoadedInventory
    target: Path  # OUTPUT/<fabric>
    fingerprint: str

    @classmethod
    def open(cls, inventory: Path, loaded: LoadedInventory, output: Path, templates: Path | None) -> RenderSession:
        """The session of `inventory` (`loaded`: read from it) into `output`, its inputs fingerprinted. An output
        tree that would hold the inventory is refused, naming both (never "remove the folder")."""
        name = loaded.inventory.fabric.name
        if _holds_inventory(inventory, output, name):
            raise OutputError(f"{output / name} is where fabric {name} renders with -o {output}, and it holds the "
                              f"inventory {inventory} (fix: -o {free_output(inventory, output, name)})")
        return cls(inventory, output, templates, loaded, output / loaded.inventory.fabric.name,
                   render_fingerprint(inventory, templates))

    def current(self) -> bool:
        """The tree at `target` is what these inputs render, untouched since (then remembered for the fast path)."""
        if not tree_matches(self.target, self.fingerprint):
            return False
        remove_dead(self.target)  # what a killed render left beside the tree
        remember_target(self.output, self.inventory, self.templates, self.target)
        return True

    def render(self, cluster: ClusterModel, progress: Progress = lambda _devices: iter,
               ) -> tuple[dict[str, Any], WriteStats]:
        """Render `cluster` (resolved from `loaded`) and write it (only the changed devices, or the whole tree),
        keep the next run's state; (the summary the "rendered" line counts, the write's statistics)."""
        facts.keep(cluster)  # the keys and the monitoring folder read the design facts: collected once
        summary = render_summary(cluster)
        code = code_digest(self.templates)
        keyed = incremental.keyed_devices(cluster, code)
        keys = incremental.device_keys(cluster, code, keyed)
        stats = self._update(cluster, keys)
        if stats is None:
            devices = summary["switches"] + summary["oob"] + summary["servers"]
            stats = render_tree(cluster, self.templates, self.target, self.fingerprint, progress(devices))
        incremental.save_keys(self.target, self.fingerprint, keys)
        local_edit.keep_render_state(self.loaded, cluster, keyed, self.target, self.fingerprint, code, self.templates,
                                     summary)
        remember_target(self.output, self.inventory, self.templates, self.target)  # next run: "up to date" unloaded
        return summary, stats

    def _update(self, cluster: ClusterModel, keys: dict[str, str]) -> WriteStats | None:
        """Re-render and rewrite only the devices whose key changed (netauto.render.incremental), journaled; None
        when the whole tree must be rendered (no keys for the tree that is there, too much changed, or a template
        read beyond its device)."""
        target = self.target
        manifest = read_manifest(target)
        current = manifest.get("fingerprint")
        old = incremental.load_keys(target, current if isinstance(current, str) else None)
        if not old or not isinstance(current, str):
            return None
        stale = {name for name, key in keys.items() if old.get(name) != key} | (set(old) - set(keys))
        stale |= {rel.split("/", 1)[0] for rel in changed_files(target, manifest)}  # edited or removed by hand
        if len(stale) > INCREMENTAL_MAX_SHARE * len(keys):
            return None
        # the tree's folders no device key names: the cluster-wide ones (kubernetes/, monitoring/) and removed devices'
        pseudo = {rel.split("/", 1)[0] for rel in manifest.get("files", {})} - set(keys)
        group = {name: incremental.pseudo_group(name) for name in pseudo}  # None: a removed device's folder
        every_group = incremental.cluster_wide_keys()
        wide = {g for name in stale & pseudo if (g := group[name])} | (stale & every_group)
        stale_devices = stale - pseudo - every_group
        try:
            artifacts = incremental.render_devices(cluster, stale_devices, wide, self.templates)
        except incremental.NeedsWholeFabric:
            return None
        # a re-rendered group replaces every folder of its group (one it no longer renders is removed)
        devices = stale_devices | {a.device for a in artifacts if a.device not in keys}
        devices |= {name for name in pseudo if group[name] is None or group[name] in wide}  # a removed one: gone
        return update_tree(artifacts, devices, target, self.fingerprint, current)


def render_tree(cluster: ClusterModel, templates: Path | None, target: Path, fingerprint: str,
                progress: Callable[[Iterable[Row]], Iterable[Row]] = iter) -> WriteStats:
    """Render every device's files of the cluster into the tree at `target`, all or nothing: each file is
    written where it is rendered (the pool's workers on a large fabric), so no process holds the fabric's text.
    `progress` sees each file's manifest row as it arrives. Template overrides are rendered whole, under bounds,
    before any folder is touched (a bad override is input: exit 2, nothing created)."""
    if templates:
        arts = list(render_cluster(cluster, templates))
        return build_tree(lambda write: progress(map(write, arts)), target, fingerprint)
    return build_tree(lambda write: progress(write_cluster(cluster, None, write)), target, fingerprint)
