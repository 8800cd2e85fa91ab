from conftest import DEFAULT_INVENTORY

from netauto.pipeline import render


def test_default_inventory_renders_every_device_file():
    model, artifacts = render(DEFAULT_INVENTORY)
    paths = {(a.device, a.path) for a in artifacts}
    for sw in model.switches:
        assert (sw.name, "etc/frr/frr.conf") in paths
        assert (sw.name, "etc/network/interfaces") in paths
        assert (sw.name, "etc/nvue.d/startup.yaml") in paths
    for server in model.servers:
        assert (server.name, "etc/netplan/60-rails.yaml") in paths
