"""Write the documentation folder: fabric.md, topology.dot/.svg (+ per-SU detail), cabling.csv."""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from netauto.docs.markdown import fabric_markdown
from netauto.docs.topology import aggregate_dot, su_detail_dot
from netauto.errors import NetautoError
from netauto.model.types import FabricModel

CABLING_COLUMNS = ("a_device", "a_port", "b_device", "b_port", "speed", "kind", "state")


@dataclass
class DocsResult:
    files: list[Path] = field(default_factory=list)
    svg: bool = False


def cabling_csv(model: FabricModel) -> str:
    """Same columns as `netauto show cabling --format csv`."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CABLING_COLUMNS)
    for l in model.cables():
        writer.writerow((l.a_device, l.a_port, l.b_device, l.b_port, l.speed, l.kind,
                         "enabled" if l.enabled else "disabled"))
    return buf.getvalue()


def dot_to(dot_text: str, target: Path, fmt: str = "svg", dot: str | None = None) -> None:
    exe = dot or shutil.which("dot")
    if not exe:
        raise NetautoError("graphviz `dot` not found (fix: apt-get install graphviz, or pass --no-svg)")
    proc = subprocess.run([exe, f"-T{fmt}", "-o", str(target)], input=dot_text, text=True, capture_output=True)
    if proc.returncode != 0:
        raise NetautoError(f"dot failed on {target.with_suffix('.dot').name}: {proc.stderr.strip()}")


def _write(path: Path, text: str, result: DocsResult) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    result.files.append(path)


def write_docs(model: FabricModel, out: Path, *, sus: list[int] | None = None, svg: bool = True) -> DocsResult:
    """Write the docs of `model` into `out`; `sus`: SU numbers to draw in detail as well."""
    out.mkdir(parents=True, exist_ok=True)
    result = DocsResult(svg=svg)
    detail = sorted(set(sus or []))
    known = {sw.su for sw in model.switches if sw.su is not None}
    for n in detail:
        if n not in known:
            raise NetautoError(f"fabric {model.name} has no SU {n} (SUs: {min(known)}-{max(known)})")
    pictures = [("topology (aggregate view)", "topology.svg" if svg else "topology.dot")]
    pictures += [(f"SU {n} detail", f"topology-su{n}.svg" if svg else f"topology-su{n}.dot") for n in detail]
    _write(out / "fabric.md", fabric_markdown(model, pictures=pictures), result)
    _write(out / "cabling.csv", cabling_csv(model), result)
    dots = {"topology": aggregate_dot(model)}
    dots.update({f"topology-su{n}": su_detail_dot(model, n) for n in detail})
    for stem, text in dots.items():
        _write(out / f"{stem}.dot", text, result)
        if svg:
            dot_to(text, out / f"{stem}.svg")
            result.files.append(out / f"{stem}.svg")
    return result
