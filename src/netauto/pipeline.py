"""The one composition of netauto's flow: inventory -> model -> artifacts (-> checks).

    load(path) -> LoadedInventory            the only step that takes a path (schema-checked YAML)
    resolve_cluster_model(loaded) -> ClusterModel   compute fabric, networks, OOB (`resolve_model`: its compute)
    render_files(cluster, templates) -> [Artifact]  every device's files
    render_session(inventory, output, templates), render_into(session)   `netauto render` (render.session)
    validate_cluster(cluster, artifacts, ...)       (netauto.validate.runner) the rules on model + files

Past the loading step every function takes data, as pyavd's do, so a caller that has the model and the
artifacts (deploy: its validation gate and Batfish) hands them on instead of rendering again. `build`,
`build_cluster`, `build_model`, `render` and `validate` are the path-in conveniences the CLI, tests and scripts
use; nothing else in netauto calls the loader or the resolvers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from netauto.errors import OutputError
from netauto.inventory.loader import LoadedInventory, load_inventory
from netauto.model.cluster import ClusterModel
from netauto.model.resolve import resolve, resolve_cluster
from netauto.model.types import FabricModel
from netauto.render import session
from netauto.render.engine import Artifact, render_cluster
from netauto.render.journal import complete_update
from netauto.render.output import Row, WriteStats

if TYPE_CHECKING:
    from netauto.validate.files import FileSet
    from netauto.validate.runner import Result


# ---------------------------------------------------------------- the steps (data in, data out)
def load(inventory: Path | str) -> LoadedInventory:
    """The inventory folder, schema-checked (bad input: `InventoryError`, one line, exit 2)."""
    return load_inventory(inventory)


def resolve_model(loaded: LoadedInventory) -> FabricModel:
    """The compute fabric of the cluster (`model.resolve`, the one resolver)."""
    return resolve(loaded)


def resolve_cluster_model(loaded: LoadedInventory) -> ClusterModel:
    """The compute fabric and every network, OOB network and server group beside it, every link with its length
    and every lossless port with headroom for it (`model.cabling`), and the pods' RDMA networks."""
    return resolve_cluster(loaded)


def iter_files(cluster: ClusterModel, templates: Path | None = None) -> Iterator[Artifact]:
    """Every device's files of the cluster, one at a time (for a progress bar)."""
    return render_cluster(cluster, templates)


def render_files(cluster: ClusterModel, templates: Path | None = None) -> list[Artifact]:
    """Every device's files of the cluster (compute fabric, networks, BMCs)."""
    return list(render_cluster(cluster, templates))


def render_tree(cluster: ClusterModel, templates: Path | None, target: Path, fingerprint: str,
                progress: Callable[[Iterable[Row]], Iterable[Row]] = iter) -> WriteStats:
    """Every device's files of the cluster written into the tree at `target`, all or nothing, as `netauto render`
    writes the whole tree (`render.session.render_tree`: on the fork pool for a large fabric)."""
    return session.render_tree(cluster, templates, target, fingerprint, progress)


def render_session(inventory: Path, output: Path, templates: Path | None) -> session.RenderSession:
    """`netauto render`'s session: the inventory loaded (bad input: one line, exit 2), its inputs fingerprinted."""
    return session.RenderSession.open(inventory, load(inventory), output, templates)


def free_output(inventory: Path, output: Path, fabric: str) -> Path:
    """The render output folder `netauto init`'s next line proposes: OUTPUT, or OUTPUT/rendered where
    OUTPUT/<fabric> would hold the inventory (render.session refuses that tree)."""
    return session.free_output(inventory, output, fabric)


def render_into(opened: session.RenderSession, progress: session.Progress = lambda _devices: iter,
                ) -> tuple[dict[str, Any], WriteStats]:
    """Resolve the session's inventory and render it into its tree (only the changed devices, or the whole
    tree); (the summary the "rendered" line counts, the write's statistics)."""
    return opened.render(resolve_cluster_model(opened.loaded), progress)


def configs_files(configs: Path, fabric: str) -> FileSet:
    """An already rendered tree (`netauto render -o DIR`: DIR/<fabric>/<device>/...) read back."""
    from netauto.validate.files import FileSet, fabric_dir  # lazy: a render never loads validate/

    folder = fabric_dir(configs, fabric)
    try:  # a render killed after committing its update journal: finish it, so the tree read is one render
        complete_update(folder)
    except OSError as exc:
        raise OutputError(f"{folder}: a killed render left an update journal that cannot be finished "
                          f"({exc.strerror or exc}) (fix: run `netauto render` into it again)") from None
    return FileSet.from_dir(folder)


# ---------------------------------------------------------------- path-in conveniences
@dataclass
class Build:
    """One pass of the pipeline: what the inventory said, the resolved cluster and its rendered files."""

    loaded: LoadedInventory
    cluster: ClusterModel
    artifacts: list[Artifact]

    @property
    def model(self) -> FabricModel:
        return self.cluster.compute


def build(inventory: Path | str, templates: Path | None = None) -> Build:
    loaded = load(inventory)
    cluster = resolve_cluster_model(loaded)
    return Build(loaded, cluster, render_files(cluster, templates))


def build_model(inventory: Path | str) -> FabricModel:
    return resolve_model(load(inventory))


def build_cluster(inventory: Path | str) -> ClusterModel:
    return resolve_cluster_model(load(inventory))


def render(inventory: Path | str, templates: Path | None = None) -> tuple[FabricModel, list[Artifact]]:
    """The compute model and the files of every device of the cluster (compute fabric, networks, BMCs)."""
    built = build(inventory, templates)
    return built.model, built.artifacts


def validate_build(built: Build, *, configs: Path | None = None, external: bool = True, simulate: bool = True,
                   drain: list[str] | None = None, yang_models: Path | None = None,
                   source: str | None = None) -> Result:
    """`validate_cluster` on a build: its rendered files, or the `configs` tree read back (and checked against
    the build's files for drift). `Result.checked` holds the files checked (for Batfish, say)."""
    from netauto.validate.runner import validate_cluster  # lazy: a render never loads validate/

    files = configs_files(configs, built.model.name) if configs is not None else None
    return validate_cluster(built.cluster, built.artifacts, configs=files, external=external, simulate=simulate,
                            drain=drain, yang_models=yang_models, source=None if files is not None else source)


def validate(inventory: Path | str, *, configs: Path | None = None, templates: Path | None = None,
             external: bool = True, simulate: bool = True, drain: list[str] | None = None,
             yang_models: Path | None = None) -> Result:
    """`netauto validate` as a function: build, then `validate_build` (timings include the render)."""
    t0 = time.perf_counter()
    built = build(inventory, templates)
    render_s = time.perf_counter() - t0
    result = validate_build(built, configs=configs, external=external, simulate=simulate, drain=drain,
                            yang_models=yang_models, source=f"rendered from {inventory}")
    result.timings = {"render": render_s, **result.timings}
    return result
