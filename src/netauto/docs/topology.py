"""Graphviz (DOT) pictures of the fabric.

Aggregate view (default): one node per group, grouped in clusters by pod and SU, so a 1,000-server fabric
stays readable:
* a pod's spines are one node (their names listed when there are few), the super-spines one node per fabric;
* an SU's rail leaves are one record node with one field per rail, its servers one node;
* edges are bundles between groups, labelled "<links> x <speed>" (plus disabled links), server->leaf bundles
  are coloured per rail so the rail-optimized wiring shows.
Per-SU detail: every leaf, server and spine of one SU and its pod, one edge per device pair.
"""

from __future__ import annotations

from collections import defaultdict

from netauto.docs.groups import FabricGroups, PodGroup, SuGroup, asn_range, group, name_range
from netauto.model.types import FabricModel, Link
from netauto.netutil.ip import ip_of

RAIL_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")
LIST_MAX = 8  # list member names inside a group node up to this many
FONT = 'fontname="Helvetica"'
NL = "\\n"  # a line break inside a DOT label


def _q(text: str) -> str:
    """A DOT string; backslash escapes (\\n line breaks, record escapes) pass through on purpose."""
    return '"' + text.replace('"', '\\"') + '"'


def _rec(text: str) -> str:
    """Escape for a record label field."""
    out = text
    for ch in "\\{}|<>":
        out = out.replace(ch, "\\" + ch)
    return out


def _colour(rail: int) -> str:
    return RAIL_COLOURS[rail % len(RAIL_COLOURS)]


def _bundle_label(links: list[Link]) -> str:
    on = sum(1 for l in links if l.enabled)
    off = len(links) - on
    speeds = sorted({l.speed for l in links})
    text = f"{on} x {'/'.join(speeds)}"
    return text + (f"\\n{off} disabled" if off else "")


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _header(name: str, title: str, legend: str, *, ranksep: str = "0.9", splines: str = "true") -> list[str]:
    label = f'<<b>{_html(title)}</b><br/><font point-size="11">{_html(legend)}</font>>'
    return [
        f"graph {_q(name)} {{",
        f"  graph [{FONT}, label={label}, labelloc=t, fontsize=18, rankdir=TB, newrank=true, "
        f'nodesep=0.35, ranksep="{ranksep}", splines={splines}];',
        f"  node [{FONT}, fontsize=11, shape=box, style=\"rounded,filled\", fillcolor=\"#f5f5f5\"];",
        f"  edge [{FONT}, fontsize=9, color=\"#555555\"];",
    ]


def _chain(names: list[str]) -> list[str]:
    """Invisible edges that keep a rank in this left-to-right order."""
    return [f"  {_q(a)} -- {_q(b)} [style=invis];" for a, b in zip(names, names[1:])]


def _group_label(title: str, members: list[str], extra: str) -> str:
    if len(members) <= LIST_MAX:
        body = "\\n".join(members)
    else:
        body = f"{len(members)} x: {name_range(members)}"
    return NL.join(part for part in (title, body, extra) if part)


SU_LEVEL_MAX = 8  # up to this many SUs the aggregate view draws every SU; above, one group per pod


def aggregate_dot(model: FabricModel, level: str = "auto") -> str:
    """level: "su" (a node per SU's leaves and servers), "pod" (per pod), "auto" (su up to SU_LEVEL_MAX SUs)."""
    g = group(model)
    if level == "auto":
        level = "su" if len(g.sus) <= SU_LEVEL_MAX else "pod"
    pairs = _pair_links(model)
    host_links: dict[str, list[Link]] = defaultdict(list)
    for link in model.links:
        if link.kind == "server-leaf":
            host_links[link.a_device].append(link)
    title = (f"{model.name}: {len(g.pods)} pod{'s' if len(g.pods) != 1 else ''}, {len(g.sus)} SU, {g.rails} rails, {len(model.servers)} GPU servers, "
             f"{len(model.switches)} switches (aggregate view{', per pod' if level == 'pod' else ''})")
    legend = ("edge label: links x speed per bundle; r<k> = rail k: NIC k of every server goes to the "
              "rail-k leaf of its SU. Per-SU detail: netauto docs --su N")
    lines = _header(model.name, title, legend)
    spine_node = {sp.name: f"pod{pod.pod}_spines" for pod in g.pods for sp in pod.spines}
    if level == "su":
        leaf_node = {leaf.name: f"su{su.su}_leaves" for su in g.sus.values() for leaf in su.leaves}
    else:
        leaf_node = {leaf.name: f"pod{su.pod}_leaves" for su in g.sus.values() for leaf in su.leaves}

    if g.super_spines:
        groups = g.super_spine_groups
        names = [s.name for s in g.super_spines]
        extra = (f"{len(groups)} groups x {len(names) // max(len(groups), 1)}, "
                 f"AS {asn_range([s.bgp.asn for s in g.super_spines])}")
        lines.append(f"  super_spines [label={_q(_group_label(f'{len(names)} super-spines', names, extra))}, "
                     'fillcolor="#fde2c8"];')
    for pod in g.pods:
        lines.append(f"  subgraph cluster_pod{pod.pod} {{")
        lines.append(f'    label={_q(f"pod {pod.pod}")}; style="rounded,dashed"; color="#888888"; fontsize=14;')
        names = [s.name for s in pod.spines]
        extra = f"AS {asn_range([s.bgp.asn for s in pod.spines])}"
        lines.append(f"    pod{pod.pod}_spines [label={_q(_group_label(f'{len(names)} spines', names, extra))}, "
                     'fillcolor="#dbe9f6"];')
        if level == "pod":
            lines += _pod_groups(pod, g)
            lines.append("  }")
            continue
        for su in pod.sus:
            lines.append(f"    subgraph cluster_su{su.su} {{")
            lines.append(f'      label={_q(f"SU {su.su}")}; style="rounded"; color="#bbbbbb"; fontsize=12;')
            fields = "|".join(f"<r{leaf.rail}> r{leaf.rail}\\n{_rec(leaf.name)}\\nAS {leaf.bgp.asn}"
                              if len(su.leaves) <= LIST_MAX else f"<r{leaf.rail}> r{leaf.rail}"
                              for leaf in su.leaves)
            head = f"SU {su.su} rail leaves"
            if len(su.leaves) > LIST_MAX:
                head += f" ({name_range([l.name for l in su.leaves])})"
            lines.append(f"      su{su.su}_leaves [shape=record, style=filled, fillcolor=\"#e2f0d9\", "
                         f"label={_q('{' + _rec(head) + '|{' + fields + '}}')}];")
            lines.append(f"      su{su.su}_servers [label={_q(_servers_label(su, g))}, fillcolor=\"#fff2cc\"];")
            lines.append("    }")
        lines.append("  }")

    # spine -> super-spine bundles, one per pod
    if g.super_spines:
        up: dict[str, list[Link]] = defaultdict(list)
        for (a, _), links in pairs.items():
            if a in spine_node and links[0].kind == "spine-superspine":
                up[spine_node[a]].extend(links)
        for node, links in up.items():
            lines.append(f"  super_spines -- {node} [label={_q(_bundle_label(links))}, penwidth=2];")
    # leaf -> spine bundles, one per leaf group
    down: dict[str, list[Link]] = defaultdict(list)
    above: dict[str, str] = {}
    for (a, b), links in pairs.items():
        if links[0].kind == "leaf-spine" and a in leaf_node:
            down[leaf_node[a]].extend(links)
            above[leaf_node[a]] = spine_node[b]
    for node, links in down.items():
        lines.append(f"  {above[node]} -- {node} [label={_q(_bundle_label(links))}, penwidth=2];")
    lines += _site(model, spine_node)
    # leaves -> servers
    for su in g.sus.values():
        if level == "su":
            for leaf in su.leaves:  # one bundle per rail, coloured
                rail_links = host_links.get(leaf.name)
                if rail_links:
                    c = _q(_colour(leaf.rail or 0))
                    lines.append(f"  su{su.su}_leaves:r{leaf.rail}:s -- su{su.su}_servers "
                                 f"[label={_q(f'r{leaf.rail}: ' + _bundle_label(rail_links))}, color={c}, fontcolor={c}];")
    if level == "pod":  # one bundle per pod
        for pod in g.pods:
            links = [l for su in pod.sus for leaf in su.leaves for l in host_links.get(leaf.name, [])]
            if links:
                label = f"{_bundle_label(links)}{NL}({g.rails} rails x {len(pod.sus)} SUs)"
                lines.append(f"  pod{pod.pod}_leaves -- pod{pod.pod}_servers [label={_q(label)}, penwidth=2];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _servers_label(su: SuGroup, g: FabricGroups) -> str:
    servers = [s.name for s in su.servers]
    nics = len(su.servers[0].rails) if su.servers else g.rails
    extra = f"{nics} rail NICs each" + (f"{NL}{len(su.absent)} absent: {', '.join(su.absent)}" if su.absent else "")
    return _group_label(f"{len(servers)} GPU servers", servers, extra)


def _pod_groups(pod: PodGroup, g: FabricGroups) -> list[str]:
    """One record for the pod's leaves (a field per SU, stacked) and one node for its servers."""
    fields = []
    for su in pod.sus:
        asns = asn_range([l.bgp.asn for l in su.leaves])
        rails = f"r{su.leaves[0].rail}-r{su.leaves[-1].rail}" if su.leaves else ""
        fields.append(f"<su{su.su}> SU {su.su}: {len(su.leaves)} rail leaves {rails}\\n"
                      f"{_rec(name_range([l.name for l in su.leaves]))}\\nAS {asns}")
    label = "{" + _rec(f"pod {pod.pod} rail leaves") + "|" + "|".join(fields) + "}"
    servers = [s.name for su in pod.sus for s in su.servers]
    absent = [a for su in pod.sus for a in su.absent]
    nics = max((len(s.rails) for su in pod.sus for s in su.servers), default=g.rails)
    extra = f"in {len(pod.sus)} SUs, {nics} rail NICs each" + (f"{NL}{len(absent)} absent" if absent else "")
    return [
        f"    pod{pod.pod}_leaves [shape=record, style=filled, fillcolor=\"#e2f0d9\", label={_q(label)}];",
        f"    pod{pod.pod}_servers [label={_q(_group_label(f'{len(servers)} GPU servers', servers, extra))}, "
        'fillcolor="#fff2cc"];',
    ]


def _site(model: FabricModel, spine_node: dict[str, str]) -> list[str]:
    """The frontend's exit (`FabricModel.exit_links`): one node for the site routers above the spines, one
    bundle per spine node, dashed: the routers are the site's, not devices of this model."""
    links = [l for l in model.exit_links if l.a_device in spine_node]
    if not links:
        return []
    routers = sorted({l.b_device for l in links})
    label = _group_label(f"{len(routers)} site router{'s' if len(routers) != 1 else ''}", routers,
                         "the site network (upstream eBGP)")
    out = [f"  site [label={_q(label)}, style=\"rounded,filled,dashed\", fillcolor=\"#eeeeee\"];"]
    bundles: dict[str, list[Link]] = defaultdict(list)
    for l in links:
        bundles[spine_node[l.a_device]].append(l)
    out += [f"  site -- {node} [label={_q(_bundle_label(ls))}, style=dashed, penwidth=2];" for node, ls in bundles.items()]
    return out


def _pair_links(model: FabricModel) -> dict[tuple[str, str], list[Link]]:
    pairs: dict[tuple[str, str], list[Link]] = defaultdict(list)
    for link in model.links:
        pairs[(link.a_device, link.b_device)].append(link)
    return pairs


SERVERS_PER_ROW = 8  # the per-SU picture's server rows: at least this many, else as many as the SU's leaves


def _server_rows(names: list[str], leaves: int) -> list[list[str]]:
    width = max(SERVERS_PER_ROW, leaves)
    return [names[i:i + width] for i in range(0, len(names), width)]


def su_detail_dot(model: FabricModel, su_number: int) -> str:
    """Every device of one SU, the spines of its pod (and the super-spines they reach as one node)."""
    g = group(model)
    if su_number not in g.sus:
        raise KeyError(su_number)
    su = g.sus[su_number]
    pod = next(p for p in g.pods if p.pod == su.pod)
    pairs = _pair_links(model)
    leaves = {l.name for l in su.leaves}
    title = f"{model.name}: SU {su.su} (pod {pod.pod}) detail: {len(su.leaves)} leaves, {len(su.servers)} servers"
    per_pair = sorted({len(ls) for (a, _), ls in pairs.items() if a in leaves and ls[0].kind == "leaf-spine"})
    legend = (f"each grey line: {'/'.join(map(str, per_pair))} leaf-spine link(s); coloured lines: rail k NIC of "
              "every server to the rail-k leaf; dashed: disabled; dotted: reserved port of an absent server")
    lines = _header(f"{model.name}-su{su.su}", title, legend, ranksep="1.6", splines="line")
    if g.super_spines:
        lines.append(f"  super_spines [label={_q(f'{len(g.super_spines)} super-spines (all groups)')}, "
                     'fillcolor="#fde2c8"];')
    lines.append("  { rank=same;")
    for sp in pod.spines:
        label = NL.join([sp.name, f"AS {sp.bgp.asn}", ip_of(sp.loopback)])
        lines.append(f"    {_q(sp.name)} [label={_q(label)}, fillcolor=\"#dbe9f6\"];")
    lines.append("  }")
    lines.append("  { rank=same;")
    for leaf in su.leaves:
        c = _colour(leaf.rail or 0)
        label = NL.join([leaf.name, f"rail {leaf.rail}, AS {leaf.bgp.asn}", ip_of(leaf.loopback)])
        lines.append(f"    {_q(leaf.name)} [label={_q(label)}, fillcolor=\"#e2f0d9\", color={_q(c)}, penwidth=2];")
    lines.append("  }")
    servers = {s.name: NL.join([s.name, ip_of(s.mgmt_address)]) for s in su.servers}
    absent = set(su.absent)
    rows = _server_rows(sorted([*servers, *su.absent]), len(su.leaves))
    for row in rows:  # wrapped: a row at most as wide as the leaves (or SERVERS_PER_ROW), not one long strip
        lines.append("  { rank=same;")
        for name in row:
            if name in absent:
                label = NL.join([name, "(absent)"])
                lines.append(f"    {_q(name)} [label={_q(label)}, style=\"rounded,dashed\", fillcolor=\"white\"];")
            else:
                lines.append(f"    {_q(name)} [label={_q(servers[name])}, fillcolor=\"#fff2cc\"];")
        lines.append("  }")
    lines += _site(model, {sp.name: _q(sp.name) for sp in pod.spines})
    if g.super_spines:
        for sp in pod.spines:
            links = [l for (a, _), ls in pairs.items() if a == sp.name for l in ls if l.kind == "spine-superspine"]
            if links:
                lines.append(f"  super_spines -- {_q(sp.name)} [label={_q(_bundle_label(links))}];")
    for (a, b), links in pairs.items():
        if a in leaves and links[0].kind == "leaf-spine":
            style = "" if all(l.enabled for l in links) else ", style=dashed, color=\"#cc0000\""
            lines.append(f"  {_q(b)} -- {_q(a)} [color=\"#888888\"{style}];")
    lines += _chain([sp.name for sp in pod.spines])
    lines += _chain([leaf.name for leaf in su.leaves])
    # each row under the one before, column under column; with several rows the NIC cables place nothing (they
    # would cross the rows between and widen every rank), invisible edges put the first row under the leaves
    wrapped = len(rows) > 1
    stack = [[leaf.name for leaf in su.leaves], *rows] if wrapped else rows
    for above, below in zip(stack, stack[1:]):
        lines += [f"  {_q(a)} -- {_q(b)} [style=invis];" for a, b in zip(above, below)]
    for row in rows:
        lines += _chain(row)
    for (a, b), links in pairs.items():
        if a in leaves and links[0].kind == "server-leaf":
            leaf = model.switch(a)
            c = _colour(leaf.rail or 0)
            style = "" if all(l.enabled for l in links) else ", style=dashed"
            style += ", constraint=false" if wrapped else ""
            lines.append(f"  {_q(a)} -- {_q(b)} [color={_q(c)}{style}];")
    for name in su.absent:
        for leaf in su.leaves:
            lines.append(f"  {_q(leaf.name)} -- {_q(name)} [style=dotted, color=\"#aaaaaa\""
                         + (", constraint=false" if wrapped else "") + "];")
    lines.append("}")
    return "\n".join(lines) + "\n"
