"""The real Debian validators (FRR, ifupdown2, netplan, yanglint) accept every rendered file of every
shipped fabric, and each wrapper catches a broken file (domain.md section 4, rules BGP-04, OWN-02, HOST-05)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, require_tool, shipped_inventories, sonic_yang_models

from netauto.pipeline import build_model, render
from netauto.render.engine import render_fabric
from netauto.render.output import write_tree
from netauto.validate import external, tool_frr, tool_ifupdown, tool_run
from netauto.validate.external import ToolMissing
from netauto.validate.findings import Finding

FRR_CONF = "etc/frr/frr.conf"
SONIC_FRR_CONF = "etc/sonic/frr/frr.conf"
INTERFACES = "etc/network/interfaces"
NETPLAN = "etc/netplan/60-rails.yaml"

FABRICS = shipped_inventories()
IDS = [p.parent.name if p.name == "inventory" and p.parent != ROOT else p.name for p in FABRICS]


FULL_MAX_SWITCHES = 100  # bigger shipped fabrics (the 10k scale example) are validated on a sample


def sample(items: list, keep: int) -> list:
    """First, last and evenly spread members: every role and both ends of the numbering."""
    if len(items) <= keep:
        return items
    step = (len(items) - 1) / (keep - 1)
    return [items[round(i * step)] for i in range(keep)]


@pytest.fixture(scope="module", params=FABRICS, ids=IDS)
def rendered(request, tmp_path_factory) -> Path:
    """One fabric rendered to disk: <tmp>/<fabric>/<device>/<path> (a sample of a scale fabric)."""
    model = build_model(request.param)
    if len(model.switches) > FULL_MAX_SWITCHES:
        by_role: dict[str, list] = {}
        for sw in model.switches:
            by_role.setdefault(sw.role, []).append(sw)
        switches = [sw for role in by_role.values() for sw in sample(role, 8)]
        model = dataclasses.replace(model, switches=switches, servers=sample(model.servers, 8))
    out = tmp_path_factory.mktemp("validators") / model.name
    write_tree(render_fabric(model), out)
    return out


def files(out: Path, rel: str) -> list[tuple[str, Path]]:
    found = external.rendered_files(out, rel)
    assert found, f"no {rel} rendered under {out}"
    return found


def explain(findings: list[Finding]) -> str:
    return "\n".join(map(str, findings[:20])) + (f"\n... {len(findings) - 20} more" if len(findings) > 20 else "")


def first_file(out: Path, rel: str, role_hint: str = "leaf") -> Path:
    candidates = [p for dev, p in files(out, rel) if role_hint in dev]
    return candidates[0] if candidates else files(out, rel)[0][1]


# ------------------------------------------------------------------ shipped fabrics pass
def frr_files(out: Path) -> list[tuple[str, Path]]:
    """Cumulus frr.conf and SONiC split-unified frr.conf alike."""
    found = external.rendered_files(out, FRR_CONF) + external.rendered_files(out, SONIC_FRR_CONF)
    assert found, f"no frr.conf rendered under {out}"
    return found


def test_every_frr_conf_passes_vtysh_dryrun(rendered):
    require_tool("vtysh")
    found = external.frr_vtysh(frr_files(rendered))
    assert found == [], explain(found)


def test_every_frr_conf_passes_the_bgpd_check_scan(rendered):
    require_tool("bgpd")
    found = external.frr_bgpd(frr_files(rendered))
    assert found == [], explain(found)


def test_every_interfaces_file_passes_ifup_syntax_check(rendered):
    require_tool("ifup")
    found = external.ifupdown2_syntax(files(rendered, INTERFACES))
    assert found == [], explain(found)


def test_every_interfaces_keyword_is_known_to_ifupdown2(rendered):
    require_tool("ifquery")
    found = external.ifupdown2_keywords(files(rendered, INTERFACES))
    assert found == [], explain(found)


def test_every_netplan_passes_netplan_generate(rendered):
    require_tool("netplan")
    found = external.netplan_generate(files(rendered, NETPLAN))
    assert found == [], explain(found)


# ------------------------------------------------------------------ each wrapper catches a broken file
@pytest.fixture(scope="module")
def pod1(tmp_path_factory) -> Path:
    model, artifacts = render(FABRICS[0])
    out = tmp_path_factory.mktemp("negative") / model.name
    write_tree(artifacts, out)
    return out


def broken_copy(src: Path, dst: Path, old: str, new: str, count: int = 1) -> Path:
    text = src.read_text()
    assert old in text, f"{old!r} not in {src}"
    dst.write_text(text.replace(old, new, count))
    return dst


def line_of(path: Path, needle: str) -> int:
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if needle in line:
            return n
    raise AssertionError(f"{needle!r} not in {path}")


def test_vtysh_reports_a_misspelled_command_with_its_line(pod1, tmp_path):
    require_tool("vtysh")
    bad = broken_copy(first_file(pod1, FRR_CONF), tmp_path / "frr.conf", " bgp router-id ", " bgp routr-id ")
    found = external.frr_vtysh([("leaf", bad)])
    assert [(f.rule, f.device, f.line) for f in found] == [("EXT-vtysh", "leaf", line_of(bad, "routr-id"))]
    assert "Unknown command" in found[0].message


def test_bgpd_scan_reports_an_undefined_peer_group_that_vtysh_accepts(pod1, tmp_path):
    require_tool("bgpd")
    require_tool("vtysh")
    src = first_file(pod1, FRR_CONF)
    anchor = re.search(r"^ neighbor \S+ interface peer-group \S+$", src.read_text(), re.M).group(0)
    bad = broken_copy(src, tmp_path / "frr.conf", anchor, anchor + "\n neighbor swp99 peer-group NOPE")
    assert external.frr_vtysh([("leaf", bad)]) == []  # syntactically fine: only bgpd sees it
    found = external.frr_bgpd([("leaf", bad)])
    assert found, "bgpd -C scan missed `neighbor swp99 peer-group NOPE`"
    assert any(f.line == line_of(bad, "peer-group NOPE") and "NOPE" in f.message for f in found), explain(found)
    assert not any("integrated-vtysh-config" in f.message for f in found)  # other daemons' lines filtered


def test_bgpd_scan_reports_a_misspelled_command_too(pod1, tmp_path):
    require_tool("bgpd")
    bad = broken_copy(first_file(pod1, FRR_CONF), tmp_path / "frr.conf", " bgp router-id ", " bgp routr-id ")
    found = external.frr_bgpd([("leaf", bad)])
    assert [f.line for f in found] == [line_of(bad, "routr-id")], explain(found)


def test_bgpd_reads_files_the_frr_user_cannot(pod1, tmp_path):
    """bgpd drops to the frr user before reading: an unreadable file must not pass silently."""
    require_tool("bgpd")
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    conf = broken_copy(first_file(pod1, FRR_CONF), private / "frr.conf", " bgp router-id ", " bgp routr-id ")
    conf.chmod(0o600)
    assert [f.line for f in external.frr_bgpd([("leaf", conf)])] == [line_of(conf, "routr-id")]


def test_bgpd_output_filter_keeps_real_errors_only():
    out = (
        "2026/11/23 09:10:35 BGP: [WVAM7-7ZYKQ][EC 33554499] sendmsg_nexthop: zclient_send_message() failed\n"
        "2026/11/23 09:10:35 BGP: [SHWNK-NWT5S][EC 100663304] No such command on config line 5: "
        "service integrated-vtysh-config\n"
        "% Malformed address or name: swp99\n"
        "2026/11/23 09:10:54 BGP: [SHWNK-NWT5S][EC 100663304] Command returned Warning Config Failed on "
        "config line 45:  neighbor swp99 peer-group NOPE\n"
    )
    found = external.parse_bgpd_output("leaf1", "frr.conf", out)
    assert [(f.line, f.message) for f in found] == [
        (None, "% Malformed address or name: swp99"),
        (45, "Warning Config Failed: neighbor swp99 peer-group NOPE"),
    ]


def test_ifup_syntax_check_reports_an_invalid_value(pod1, tmp_path):
    require_tool("ifup")
    src = first_file(pod1, INTERFACES)
    bad = broken_copy(src, tmp_path / "interfaces", "    mtu 9216", "    mtu 99999")
    found = external.ifupdown2_syntax([("leaf", bad)])
    assert found and found[0].rule == "EXT-ifup" and "mtu" in found[0].message, explain(found)
    assert found[0].line == line_of(bad, "mtu 99999")


def test_keyword_check_reports_a_misspelled_keyword_that_ifup_accepts(pod1, tmp_path):
    require_tool("ifup")
    require_tool("ifquery")
    bad = broken_copy(first_file(pod1, INTERFACES), tmp_path / "interfaces", "    mtu 9216", "    mtuu 9216")
    assert external.ifupdown2_syntax([("leaf", bad)]) == []  # ifup -s silently accepts unknown keywords
    found = external.ifupdown2([("leaf", bad)])
    assert [(f.rule, f.line) for f in found] == [("EXT-ifupdown2-keywords", line_of(bad, "mtuu"))]
    assert "'mtuu'" in found[0].message


def test_keyword_catalogue_comes_from_ifquery_and_cumulus_keywords_are_whitelisted():
    require_tool("ifquery")
    catalogue = external.ifupdown2_keyword_catalogue()
    assert {"mtu", "address", "alias", "bridge-access", "vrf-table", "link-down"} <= catalogue
    assert "link-speed" not in catalogue  # Cumulus-only (ethtool addon): must come from the whitelist
    assert {"link-speed", "link-fec", "link-autoneg", "clag-id"} <= external.CUMULUS_IFUPDOWN_KEYWORDS


def test_netplan_reports_an_unknown_key_with_file_and_line(pod1, tmp_path):
    require_tool("netplan")
    src = files(pod1, NETPLAN)[0][1]
    bad = broken_copy(src, tmp_path / "60-rails.yaml", "routing-policy:", "routing-polcy:")
    found = external.netplan_generate([("gpu", bad)])
    assert [(f.rule, f.file, f.line) for f in found] == [("EXT-netplan", str(bad), line_of(bad, "routing-polcy"))]
    assert "unknown key 'routing-polcy'" in found[0].message


def test_batches_keep_findings_on_the_right_file(pod1, tmp_path):
    """Good and bad files in one batch: each finding names its own device and file."""
    require_tool("bgpd")
    require_tool("ifup")
    good = files(pod1, FRR_CONF)
    bad = broken_copy(good[3][1], tmp_path / "frr.conf", " bgp router-id ", " bgp routr-id ")
    batch = good[:3] + [("broken", bad)] + good[3:]
    assert [(f.device, f.file) for f in external.frr_bgpd(batch)] == [("broken", str(bad))]
    good_if = files(pod1, INTERFACES)
    bad_if = broken_copy(good_if[0][1], tmp_path / "interfaces", "    mtu 9216", "    mtu 99999")
    found = external.ifupdown2_syntax(good_if + [("broken", bad_if)])
    assert {(f.device, f.file) for f in found} == {("broken", str(bad_if))}


def test_concatenated_vtysh_maps_every_error_to_its_own_file_and_line(pod1, tmp_path, monkeypatch):
    """Many files per `vtysh --dryrun`: the same findings, file and line as one process per file."""
    require_tool("vtysh")
    good = files(pod1, FRR_CONF)
    bad1 = broken_copy(good[1][1], tmp_path / "a.conf", " bgp router-id ", " bgp routr-id ")
    bad2 = broken_copy(good[4][1], tmp_path / "b.conf", " bgp router-id ", " bgp routr-id ")
    # a router-bgp-only command at the top of the file after one that ends inside `router bgp`: a leaked node
    # would accept it; the boundary must not
    body = good[5][1].read_text()
    bad3 = tmp_path / "c.conf"
    bad3.write_text(" maximum-paths 64\n" + body)
    open_end = tmp_path / "open.conf"
    open_end.write_text(body.rstrip().removesuffix("!").rstrip().removesuffix("exit").rstrip() + "\n")
    batch = good[:2] + [("b1", bad1)] + good[2:5] + [("b2", bad2), ("open", open_end), ("b3", bad3)]
    monkeypatch.setattr(tool_frr, "VTYSH_CHUNK", 100)
    together = external.frr_vtysh(batch, workers=1)
    monkeypatch.setattr(tool_frr, "_vtysh_concatenated", lambda *a: None)
    one_by_one = external.frr_vtysh(batch, workers=1)
    assert together == one_by_one
    assert [(f.device, f.line) for f in together] == [
        ("b1", line_of(bad1, "routr-id")), ("b2", line_of(bad2, "routr-id")), ("b3", 1)]


def test_preloaded_ifup_batch_says_what_ifup_says(pod1, tmp_path, monkeypatch):
    """The fork-per-file ifup driver (ifup_batch.py) gives the same exit codes and messages as plain `ifup`."""
    require_tool("ifup")
    if not tool_run.private_namespace_ok() or not tool_ifupdown._ifup_batch_command():
        pytest.skip("needs root + unshare and /usr/share/ifupdown2")
    src = first_file(pod1, INTERFACES)
    cases = [src, broken_copy(src, tmp_path / "mtu", "    mtu 9216", "    mtu 99999"),
             broken_copy(src, tmp_path / "method", "iface lo inet loopback", "iface lo inet bogus")]
    command, tmpfs = [external.require("ifup"), "-a", "-s", "-i"], ["/run/network", "/var/tmp"]
    batched = tool_run._namespace_batch(tool_ifupdown._ifup_batch_command(), cases, tmpfs, framed=True)
    one_by_one = tool_run._namespace_batch(command, cases, tmpfs)
    assert [rc for rc, _ in batched] == [rc for rc, _ in one_by_one] == [0, 1, 1]
    assert [out.strip() for _, out in batched] == [out.strip() for _, out in one_by_one]


def test_fallback_without_private_namespace(pod1, tmp_path, monkeypatch):
    """Without unshare: one process per file, still correct."""
    require_tool("bgpd")
    require_tool("ifup")
    monkeypatch.setattr(tool_run, "private_namespace_ok", lambda: False)
    bad = broken_copy(first_file(pod1, FRR_CONF), tmp_path / "frr.conf", " bgp router-id ", " bgp routr-id ")
    good = files(pod1, FRR_CONF)[:2]
    assert [f.device for f in external.frr_bgpd(good + [("broken", bad)])] == ["broken"]
    bad_if = broken_copy(first_file(pod1, INTERFACES), tmp_path / "interfaces", "    mtu 9216", "    mtu 99999")
    assert [f.device for f in external.ifupdown2_syntax([("broken", bad_if)])] == ["broken"]


def test_missing_tool_is_reported_not_passed(monkeypatch, tmp_path):
    monkeypatch.setattr(tool_run, "find_tool", lambda name: None)
    monkeypatch.setattr(external, "NETPLAN_GENERATORS", ())
    conf = tmp_path / "frr.conf"
    conf.write_text("hostname x\n")
    for check in (external.frr_vtysh, external.frr_bgpd, external.ifupdown2_syntax, external.netplan_generate):
        with pytest.raises(ToolMissing, match=r"not installed \(apt-get install "):
            check([("x", conf)])
    with pytest.raises(ToolMissing) as exc:
        external.yanglint(conf, tmp_path)
    assert exc.value.tool == "yanglint" and str(exc.value).startswith("yanglint not installed")


# ------------------------------------------------------------------ yanglint wrapper
@pytest.mark.parametrize("mtu, ok", [(9100, True), (9300, False)])
def test_yanglint_wrapper(tmp_path, mtu, ok):
    require_tool("yanglint")
    models = sonic_yang_models()
    data = {"sonic-port:sonic-port": {"PORT": {"PORT_LIST": [
        {"name": "Ethernet0", "lanes": "0,1,2,3", "speed": 400000, "mtu": mtu, "fec": "rs"}]}}}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data, indent=1))
    found = external.yanglint(path, models, device="leaf1")
    if ok:
        assert found == [], explain(found)
    else:
        assert found and all(f.rule == "EXT-yanglint" and f.device == "leaf1" for f in found)
        assert any("9300" in f.message for f in found), explain(found)
