# Ansible inventory plugin: the GPU fabric straight from the netauto source of truth.
# Same data as `netauto export ansible` (one code path: netauto.export.ansible).
from __future__ import annotations

DOCUMENTATION = r"""
    name: netauto
    short_description: Rail-optimized GPU fabric inventory from a netauto source of truth
    description:
        - Builds the inventory from the netauto inventory/ folder, as `netauto export ansible` does.
        - Groups switches (leaf, spine, super_spine), gpu_servers, nos_<nos>, su<N>, pod<N>, rail<N>, super_spine_group<N>.
        - Host vars carry the management address, addressing, ASN and the rendered file paths (netauto_files).
        - Imports netauto when Ansible runs in the same Python; otherwise runs the `netauto` command.
    options:
        plugin:
            description: Marks this file as a netauto inventory source.
            required: true
            choices: [netauto]
        inventory:
            description: The source-of-truth folder, relative to this file.
            type: str
            default: inventory
        rendered:
            description: The `netauto render -o` folder (files live in RENDERED/<fabric>/), relative to this file.
            type: str
            default: build
        templates:
            description: Template overrides folder passed to `netauto render`, relative to this file.
            type: str
            default: ""
        netauto_command:
            description: The netauto executable on the control node.
            type: str
            default: netauto
"""

EXAMPLE = r"""
# ansible_compat/inventories/gpu-pod1.netauto.yml
plugin: netauto
inventory: ../../inventory
rendered: ../../build
"""

import json
import os
import subprocess

from ansible.errors import AnsibleParserError
from ansible.plugins.inventory import BaseInventoryPlugin


def _flatten(data):
    groups, hostvars = {}, {}

    def walk(name, node):
        node = node or {}
        g = groups.setdefault(name, {"hosts": [], "children": [], "vars": {}})
        g["vars"].update(node.get("vars") or {})
        for host, hv in (node.get("hosts") or {}).items():
            g["hosts"].append(host)
            if hv:
                hostvars.setdefault(host, {}).update(hv)
        for child, sub in (node.get("children") or {}).items():
            g["children"].append(child)
            walk(child, sub)

    for name, node in data.items():
        walk(name, node)
    return groups, hostvars


class InventoryModule(BaseInventoryPlugin):
    NAME = "netauto"

    def verify_file(self, path):
        return super().verify_file(path) and path.endswith(("netauto.yml", "netauto.yaml"))

    def _export(self, source, rendered, templates, command):
        try:
            from netauto.export.ansible import ansible_inventory
            from netauto.pipeline import build_cluster
        except ImportError:
            argv = [command, "export", "ansible", "--format", "json", "-i", source, "--rendered", rendered]
            if templates:
                argv += ["--templates", templates]
            try:
                proc = subprocess.run(argv, capture_output=True, text=True, check=False)
            except OSError as exc:
                raise AnsibleParserError(f"netauto is neither importable nor runnable ({command}): {exc}")
            if proc.returncode != 0:
                raise AnsibleParserError(f"netauto export ansible failed: {proc.stderr.strip()}")
            return json.loads(proc.stdout)
        try:
            model = build_cluster(source)  # the compute fabric and every network (network_<name> groups)
        except Exception as exc:  # NetautoError: one line naming file, key and fix
            raise AnsibleParserError(f"netauto: {exc}")
        return ansible_inventory(model, source=source, render_out=rendered, templates=templates or None,
                                 netauto_command=command)

    def parse(self, inventory, loader, path, cache=True):
        super().parse(inventory, loader, path, cache)
        self._read_config_data(path)
        base = os.path.dirname(os.path.abspath(path))

        def where(option):
            value = self.get_option(option)
            return os.path.normpath(os.path.join(base, os.path.expanduser(value))) if value else ""

        from pathlib import Path

        templates = where("templates")
        data = self._export(Path(where("inventory")), Path(where("rendered")), Path(templates) if templates else None,
                            self.get_option("netauto_command"))
        groups, hostvars = _flatten(data)
        for name in groups:
            if name != "all":
                self.inventory.add_group(name)
        for name, g in groups.items():
            for host in g["hosts"]:
                self.inventory.add_host(host, group=name)
            for child in g["children"]:
                self.inventory.add_child(name, child)
            for key, value in g["vars"].items():
                self.inventory.set_variable(name, key, value)
        for host, hv in hostvars.items():
            for key, value in hv.items():
                self.inventory.set_variable(host, key, value)
