"""`netauto plan racks`: every rack of the data hall with its devices, rack units and power against its budget,
as a table, CSV, or an SVG of the floor plan with each rack's elevation (netauto.model.hall places them)."""

from __future__ import annotations

import csv
import io
from xml.sax.saxutils import escape

from netauto.model.hall import HallPlan, Rack

COLUMNS = ("rack", "u", "device", "model", "size_u", "power_kw")


def to_table(plan: HallPlan) -> str:
    out = []
    for r in plan.racks:
        if not r.devices:
            continue
        out.append(f"{r.name}  {r.used_u}/{r.height_u}U  {r.power_kw:g}/{r.budget_kw:g} kW")
        out += [f"  U{d.u:<3d} {d.device:<24s} {d.model:<10s} {d.size_u}U {d.power_kw:g} kW" for d in r.devices]
    used = [r for r in plan.racks if r.devices]
    total = round(sum(r.power_kw for r in used), 3)
    out.append(f"{len(used)} of {len(plan.racks)} racks used, {len(plan.where)} devices, {total:g} kW")
    return "\n".join(out) + "\n"


def to_csv(plan: HallPlan) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for r in plan.racks:
        w.writerows((r.name, d.u, d.device, d.model, d.size_u, d.power_kw) for d in r.devices)
    return buf.getvalue()


RACK_W, RACK_D, U_PX, GAP = 40, 24, 6, 12


def _floor(plan: HallPlan) -> list[str]:
    out = ['<g class="floor">']
    for r in plan.racks:
        x, y = 10 + r.position * (RACK_W + 4), 30 + r.row * (RACK_D + GAP)
        fill = "#cfe3ff" if r.devices else "#eeeeee"
        out.append(f'<rect class="rack" data-rack="{r.name}" x="{x}" y="{y}" width="{RACK_W}" height="{RACK_D}" '
                   f'fill="{fill}" stroke="#333"><title>{escape(r.name)}: {r.power_kw:g}/{r.budget_kw:g} kW, '
                   f'{len(r.devices)} devices</title></rect>')
        out.append(f'<text x="{x + 3}" y="{y + 15}" font-size="9">{escape(r.name)}</text>')
    out.append("</g>")
    return out


def _elevation(r: Rack, x: int, y: int) -> list[str]:
    h = r.height_u * U_PX
    out = [f'<g class="elevation" data-rack="{r.name}">',
           f'<text x="{x}" y="{y - 4}" font-size="10">{escape(r.name)} {r.power_kw:g}/{r.budget_kw:g} kW</text>',
           f'<rect x="{x}" y="{y}" width="120" height="{h}" fill="none" stroke="#333"/>']
    for d in r.devices:
        top = y + h - (d.u - 1 + d.size_u) * U_PX
        out.append(f'<rect class="device" data-device="{escape(d.device)}" x="{x + 2}" y="{top}" width="116" '
                   f'height="{d.size_u * U_PX}" fill="#9fc" stroke="#333"><title>{escape(d.device)} {escape(d.model)} '
                   f'U{d.u} {d.power_kw:g} kW</title></rect>')
        out.append(f'<text x="{x + 4}" y="{top + min(d.size_u * U_PX, 10) - 1}" font-size="7">{escape(d.device)}</text>')
    out.append("</g>")
    return out


def _budgets(plan: HallPlan) -> str:
    kws = sorted({r.budget_kw for r in plan.racks})
    return f"{kws[0]:g} kW each" if len(kws) == 1 else f"{' / '.join(f'{k:g}' for k in kws)} kW racks"


def to_svg(plan: HallPlan) -> str:
    h = plan.hall
    floor_h = 30 + h.rows * (RACK_D + GAP)
    used = [r for r in plan.racks if r.devices]
    per_line = 10
    elev_h = h.rack_u * U_PX + 30
    width = max(20 + h.racks_per_row * (RACK_W + 4), 20 + per_line * 130)
    height = floor_h + 20 + ((len(used) + per_line - 1) // per_line) * elev_h
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif">',
           f'<text x="10" y="18" font-size="12">Floor plan: {h.rows} rows x {h.racks_per_row} racks, '
           f'{_budgets(plan)}</text>']
    out += _floor(plan)
    for i, r in enumerate(used):
        out += _elevation(r, 10 + (i % per_line) * 130, floor_h + 30 + (i // per_line) * elev_h)
    out.append("</svg>")
    return "\n".join(out) + "\n"
