"""PFC headroom rules: every lossless port is sized for its real cable, and all of them fit the lossless pool.

A port's headroom must hold what its peer sends during the round trip of the cable after XOFF (domain.md
Corrections "PFC headroom and distance"); the length each port is sized for is read back from the rendered
files (NVUE `qos pfc <profile> cable-length`, qos_features.conf `pfc.<group>.cable_length`, SONiC CABLE_LENGTH)
and compared with the link's length in the model (`netauto.model.cabling`).
"""

from __future__ import annotations

from collections.abc import Iterator

from netauto.model.cabling import headroom_budget, switch_sku
from netauto.model.types import Switch
from netauto.validate.rules import RuleOutput, rule
from netauto.validate.rules._util import QOS, file_of
from netauto.validate.state import ParsedFabric, SwitchState


def _views(view: ParsedFabric) -> Iterator[tuple[str, SwitchState, Switch, str]]:
    """Every parsed view of every lossless switch (Cumulus: Linux files and NVUE; SONiC: config_db)."""
    for dev, st in view.switches.items():
        intent = view.intent(dev)
        if not intent.qos.lossless:
            continue
        yield dev, st, intent, file_of(st, "qos", QOS)
        nv = view.nvue.get(dev)
        if nv is not None:
            yield dev, nv, intent, file_of(nv, "nvue", QOS)


@rule(id="BUF-02", severity="error", description="every PFC port's headroom is sized for at least its cable's length (long-haul links included)")
def headroom_for_cable(view: ParsedFabric) -> RuleOutput:
    for dev, st, intent, f in _views(view):
        short = []
        for iface in intent.pfc_interfaces:
            have = st.qos.port_cable.get(iface.name)
            want = intent.cable_of(iface)
            if iface.name in st.qos.pfc_ports and have is not None and have < want:
                short.append(f"{iface.name} sized for {have} m, its cable is {want} m")
        if short:
            yield dev, (f"PFC headroom too small for the cable on {len(short)} port(s) (PFC pauses too late: RoCE "
                        f"drops): {'; '.join(short[:4])}{' ...' if len(short) > 4 else ''}"), f


@rule(id="BUF-03", severity="error", description="the lossless headroom of all PFC ports fits the ASIC's buffer (SKU buffer facts: shared buffer less the lossy ingress pool)")
def headroom_fits_pool(view: ParsedFabric) -> RuleOutput:
    for dev, st, intent, f in _views(view):
        sku = switch_sku(intent)
        speeds = {i.name: i.speed_mbps for i in intent.interfaces}
        prios = max(1, len(st.qos.pfc_prios))
        total = sum(prios * sku.headroom_bytes(speeds[p], st.qos.port_cable.get(p) or intent.qos.cable_length_m)
                    for p in st.qos.pfc_ports if p in speeds)
        budget = headroom_budget(intent, sku)
        if total > budget:
            yield dev, (f"PFC headroom of {len(st.qos.pfc_ports)} lossless port(s) is {total} bytes, more than the "
                        f"{budget}-byte headroom budget of the buffer ({sku.name}): run the long-haul links "
                        "lossy (cabling.long_haul: lossy-ecn) or shorten them"), f
