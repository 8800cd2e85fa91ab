"""The SKU templates SONiC regenerates QoS and buffers from, rendered so that the regeneration gives netauto's tables.

`config qos reload` (and `config load_minigraph`, which runs it) clears config_db's QoS and buffer tables and
writes what sonic-cfggen renders from <hwsku dir>/qos.json.j2 and buffers.json.j2. The SKU's own qos.json.j2 maps
DSCP 26 to TC 1, lossy: the RoCE class would silently lose PFC. netauto installs, in the switch's SKU folder, a
qos.json.j2 and a buffers.json.j2 whose output is exactly netauto's tables for that switch (a Jinja template of
literal JSON; SONiC's own SonicQosProfile mechanism swaps these files the same way). tests/test_sonic_cfggen.py
renders them with SONiC's generator and compares the result with config_db.json.
"""

from __future__ import annotations

import json
from typing import Any

from netauto.errors import NetautoError
from netauto.model.types import FabricModel, Switch
from netauto.sonic.config_db import buffer_tables, qos_tables

HEADER = ("{#- netauto: %s of %s. `config qos reload` renders this SKU template; netauto replaced the image's file so\n"
          "    that the reload writes the fabric's tables back (its values below). Redeploy restores it after an image\n"
          "    upgrade (the new image brings the SKU's own file). -#}\n")


def _template(sw: Switch, what: str, tables: dict[str, Any]) -> str:
    body = json.dumps(tables, indent=4, sort_keys=True)
    if "{%" in body or "%}" in body:  # names in these tables are netauto's own; never leave the raw block
        raise NetautoError(f"{sw.name}: a {what} value holds a Jinja delimiter")
    return HEADER % (what, sw.name) + "{% raw %}" + body + "{% endraw %}\n"


def qos_json_j2(sw: Switch, fabric: FabricModel | None = None) -> str:
    return _template(sw, "qos.json.j2", qos_tables(sw))


def buffers_json_j2(sw: Switch, fabric: FabricModel | None = None) -> str:
    return _template(sw, "buffers.json.j2", buffer_tables(sw))
