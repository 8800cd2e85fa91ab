"""Drift reports (issue 21): a one-line edit is one changed line (DRIFT-01 and `netauto drift`), `drift`
defaults to a table like the other commands, and its markdown keeps each diff out of the table."""

from __future__ import annotations

import json
import shutil

from click.testing import CliRunner
from conftest import DEFAULT_INVENTORY

from netauto.cli.app import cli, load_commands
from netauto.diffstat import changed_lines, summary
from netauto.verify.findings import CheckResult, Report
from netauto.verify.output import to_json, to_markdown

load_commands()

ONE_EDIT = """--- running:/etc/frr/frr.conf
+++ intent:/etc/frr/frr.conf
@@ -10,3 +10,3 @@
 router bgp 65100
-  maximum-paths 32
+  maximum-paths 64
 exit
"""


def test_one_line_edit_is_one_changed_line():
    assert changed_lines(ONE_EDIT) == 1
    assert summary(ONE_EDIT) == "1 changed line: file has `maximum-paths 32`; intent has `maximum-paths 64`"
    assert changed_lines("@@ -1 +1,3 @@\n-a\n+b\n+c\n+d\n x\n+e\n") == 4  # 1 replaced by 3, then 1 added
    assert changed_lines("@@ -1,2 +1 @@\n-a\n-b\n") == 2


def test_validate_drift01_counts_a_one_line_edit_once(tmp_path):
    out = tmp_path / "build"
    runner = CliRunner()
    assert runner.invoke(cli, ["render", "-i", str(DEFAULT_INVENTORY), "-o", str(out)]).exit_code == 0
    tree = tmp_path / "configs"
    shutil.copytree(out / "gpu-pod1", tree, symlinks=False)
    frr = tree / "spine1" / "etc" / "frr" / "frr.conf"
    text = frr.read_text()
    assert " maximum-paths 64" in text
    frr.write_text(text.replace(" maximum-paths 64", " maximum-paths 32", 1))
    res = runner.invoke(cli, ["validate", "-i", str(DEFAULT_INVENTORY), "--configs", str(tree), "--no-external",
                              "--no-simulate", "--format", "json"])
    drift = [f for f in json.loads(res.output)["findings"] if f["rule"] == "DRIFT-01"]
    assert len(drift) == 1 and "(1 changed line: file has `maximum-paths 32`" in drift[0]["message"], drift


def test_drift_defaults_to_a_table():
    fmt = next(o for o in cli.commands["drift"].params if o.name == "fmt")
    assert fmt.default == "table"


def test_drift_markdown_keeps_the_diff_out_of_the_table():
    rep = Report("gpu-pod1", [CheckResult("drift", "su1-r3-leaf", "/etc/frr/frr.conf", "as intended", "1 changed line",
                                      "fail", summary(ONE_EDIT), detail=ONE_EDIT),
                              CheckResult("drift", "spine1", "/etc/frr/frr.conf", "as intended", "as intended", "pass")])
    md = to_markdown(rep)
    table, details = md.split("## Details", 1)
    row = next(line for line in table.splitlines() if "su1-r3-leaf" in line)
    assert "maximum-paths 32" in row and "@@" not in table and "+++" not in table
    assert "### su1-r3-leaf /etc/frr/frr.conf\n\n```diff\n--- running:/etc/frr/frr.conf\n" in details
    assert "+  maximum-paths 64\n exit\n```" in details
    assert '"detail": "--- running:/etc/frr/frr.conf' in to_json(rep)
