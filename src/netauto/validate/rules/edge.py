"""Layer 2 edge (leaf-subnet mode): host ports are STP edge ports with BPDU guard, in one bridge named alike."""

from __future__ import annotations

from netauto.validate.rules import RuleOutput, rule
from netauto.validate.state import ParsedFabric, SwitchState
from netauto.validate.rules._util import IFACES, file_of

NVUE = "etc/nvue.d/startup.yaml"


def _edge(state: SwitchState, port: str) -> bool:
    """STP admin-edge with BPDU guard on the port, or on its bond when it is a member of one (MLAG access)."""
    p = state.ports[port]
    if p.bond is not None and p.bond in state.bond_edge:
        return state.bond_edge[p.bond]
    return bool(p.stp_edge and p.bpdu_guard)


@rule(id="EDGE-01", severity="error", description="leaf-subnet host ports are STP edge ports with BPDU guard, in the same bridge in NVUE and the Linux files")
def host_edge_ports(view: ParsedFabric) -> RuleOutput:
    for dev, st in view.switches.items():
        sw = view.intent(dev)
        if sw.svi is None or st.source == "config_db":  # SONiC: no STP in the community image; nothing to check
            continue
        states = [(st, file_of(st, "interfaces", IFACES))]
        if dev in view.nvue:
            states.append((view.nvue[dev], NVUE))
        for state, f in states:
            loose = [i.name for i in sw.host_ports if i.enabled and i.name in state.ports and not _edge(state, i.name)]
            if loose:
                yield dev, (f"host port(s) {', '.join(loose[:6])}{' ...' if len(loose) > 6 else ''} not STP admin-edge "
                            "with BPDU guard: a server bridging two rails could loop the rail VLAN"), f
            bridges = [b for b, members in state.bridges.items() if set(members) & {i.name for i in sw.host_ports}]
            if bridges and bridges != [sw.svi.bridge]:
                yield dev, f"host ports are in bridge {', '.join(bridges)}, the fabric's bridge is {sw.svi.bridge}", f
