"""SONiC: what its own generator and orchagent need of config_db's QoS and buffer tables beyond the YANG models."""

from __future__ import annotations

from netauto.netutil.interface import port_sort_key
from netauto.validate.rules import RuleOutput, rule
from netauto.validate.rules._util import QOS, file_of
from netauto.validate.state import ParsedFabric


@rule(id="SONIC-01", severity="error", description="SONiC: a WRED profile asking for ECN has its colour enables on (orchagent marks no colour whose wred_<colour>_enable is not true)")
def ecn_colour_enables(view: ParsedFabric) -> RuleOutput:
    for dev, st in view.switches.items():
        if st.qos.ecn_inert:
            yield dev, (f"ECN on queue(s) {sorted(st.qos.ecn_inert)} never marks: the WRED profile's "
                        "wred_green/yellow/red_enable are not \"true\" (sonic-buildimage issue 4545)"), file_of(st, "qos", QOS)


@rule(id="SONIC-02", severity="error", description="SONiC: every active port has BUFFER_PORT_INGRESS/EGRESS_PROFILE_LIST naming existing profiles (SONiC's buffers template)")
def profile_lists(view: ParsedFabric) -> RuleOutput:
    for dev, st in view.switches.items():
        notes = st.qos.profile_list_notes
        if notes:
            ports = sorted(notes, key=port_sort_key)
            shown = "; ".join(f"{p}: {notes[p]}" for p in ports[:4])
            yield dev, (f"{len(ports)} active port(s) without working buffer profile lists: {shown}"
                        f"{' ...' if len(ports) > 4 else ''}"), file_of(st, "qos", QOS)


@rule(id="SONIC-03", severity="error", description="SONiC: DEVICE_METADATA type selects buffer defaults the HWSKU has (buffers_config.j2), so `config qos reload` renders")
def type_has_buffer_defaults(view: ParsedFabric) -> RuleOutput:
    for dev, st in view.switches.items():
        if st.qos.buffer_defaults_note:
            yield dev, st.qos.buffer_defaults_note, file_of(st, "qos", QOS)
