"""`netauto init` writes a starter inventory that renders and validates; `netauto schema` is the pydantic
models' JSON schema, and every shipped inventory file passes it (what an editor with yaml-language-server
checks while typing)."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml
from conftest import shipped_inventories
from test_cli import run

from netauto.inventory.starter import SCHEMA_FILE, inventory_schema


@pytest.mark.parametrize("args, switches, servers", [
    ([], 10, 4),  # 8 rails x 1 SU + 2 spines
    (["--nos", "sonic", "--rails", "4", "--servers", "8", "--spines", "4"], 8, 8),
])
def test_init_writes_an_inventory_that_renders_and_validates(tmp_path, capsys, monkeypatch, args, switches, servers):
    inv = tmp_path / "myfabric" / "inventory"
    code, out, err = run(["init", inv, *args], capsys, monkeypatch)
    assert code == 0, err
    assert f"{switches} switches, {servers} servers" in out and "fabric myfabric" in out
    assert (inv / SCHEMA_FILE).is_file()
    for f in inv.glob("*.yaml"):
        assert f.read_text().startswith(f"# yaml-language-server: $schema={SCHEMA_FILE}\n")
    code, out, err = run(["render", "-i", inv, "-o", tmp_path / "build"], capsys, monkeypatch)
    assert code == 0 and (tmp_path / "build" / "myfabric" / "su1-gpu01").is_dir(), err
    code, out, err = run(["validate", "-i", inv, "--no-external"], capsys, monkeypatch)
    assert code == 0 and "0 error(s), 0 warning(s)" in out, out + err


def test_init_next_line_runs_where_the_inventory_is_under_build(tmp_path, capsys, monkeypatch):
    """getting-started's first try: `netauto init build/myfabric/inventory`, then the printed `next:` commands.
    `-o build` would put fabric myfabric's tree at build/myfabric, the folder holding the inventory."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["init", "build/myfabric/inventory"], capsys, monkeypatch)
    assert code == 0, err
    render_cmd = out.split("next: netauto ", 1)[1].split(" && ")[0].split()
    assert render_cmd[0] == "render"
    code, out, err = run(render_cmd, capsys, monkeypatch)
    assert code == 0, err
    assert (tmp_path / "build" / "myfabric" / "inventory" / "fabric.yaml").is_file()


def test_render_into_the_inventorys_own_folder_says_so(tmp_path, capsys, monkeypatch):
    """The output tree would hold the inventory: the error names the inventory and never says to remove the
    folder (that would delete the inventory)."""
    monkeypatch.chdir(tmp_path)
    assert run(["init", "build/myfabric/inventory"], capsys, monkeypatch)[0] == 0
    code, out, err = run(["render", "-i", "build/myfabric/inventory", "-o", "build"], capsys, monkeypatch)
    assert code == 2
    assert err.count("\n") == 1 and "build/myfabric/inventory" in err and "-o" in err, err
    assert "remove the folder" not in err
    assert (tmp_path / "build" / "myfabric" / "inventory" / "fabric.yaml").is_file()


def test_init_refuses_to_overwrite(tmp_path, capsys, monkeypatch):
    assert run(["init", tmp_path / "inv"], capsys, monkeypatch)[0] == 0
    code, _, err = run(["init", tmp_path / "inv", "--rails", "2"], capsys, monkeypatch)
    assert code == 2 and "does not overwrite" in err
    # a newcomer's `netauto init` in a clone hits the shipped inventory/: the way out comes first, --force last
    assert err.index("netauto init myfabric/inventory") < err.index("--force"), err
    assert "rails: 8" in (tmp_path / "inv" / "topology.yaml").read_text()
    assert run(["init", tmp_path / "inv", "--rails", "2", "--force"], capsys, monkeypatch)[0] == 0
    assert "rails: 2" in (tmp_path / "inv" / "topology.yaml").read_text()


def test_schema_command_prints_the_models_schema(capsys, monkeypatch, tmp_path):
    code, out, _ = run(["schema"], capsys, monkeypatch)
    schema = json.loads(out)
    assert code == 0 and "required" not in schema and schema["additionalProperties"] is False
    assert set(schema["properties"]) >= {"fabric", "topology", "qos", "overrides"}
    code, out, _ = run(["schema", "--whole", "-o", tmp_path / "s.json"], capsys, monkeypatch)
    assert json.loads((tmp_path / "s.json").read_text())["required"] == ["fabric", "topology"]


@pytest.mark.parametrize("root", shipped_inventories(), ids=lambda p: p.parent.name)
def test_every_shipped_inventory_file_passes_the_schema(root):
    validator = jsonschema.Draft202012Validator(inventory_schema())
    whole = jsonschema.Draft202012Validator(inventory_schema(whole=True))
    merged: dict = {}
    for f in sorted(root.glob("*.y*ml")):
        data = yaml.safe_load(f.read_text()) or {}
        errors = [e.message for e in validator.iter_errors(data)]
        assert not errors, f"{f}: {errors[:3]}"
        merged.update(data)
    assert not list(whole.iter_errors(merged))


@pytest.mark.parametrize("mutation, where", [
    ({"fabric": {"name": "x", "nmae": 1}}, "nmae"),  # a typo: unknown keys are errors, as in the loader
    ({"topology": {"rails": 99, "servers_per_su": 1, "spines_per_pod": 1}}, "99"),
    ({"fabric": {"name": "x", "nos": {"default": "eos"}}}, "eos"),
])
def test_the_schema_catches_what_the_loader_refuses(mutation, where):
    errors = [e.message for e in jsonschema.Draft202012Validator(inventory_schema()).iter_errors(mutation)]
    assert errors and any(where in m for m in errors), errors


def test_schema_says_how_naming_fields_count():
    """The schema an editor shows says what the names use: rails count from 0 (su1-r0-leaf), SUs from 1."""
    from netauto.pipeline import build_model
    from conftest import DEFAULT_INVENTORY

    text = json.dumps(inventory_schema())
    assert "rail (0-based" in text and "rail (1-based" not in text
    leaves = [sw.name for sw in build_model(DEFAULT_INVENTORY).switches if sw.role == "leaf"]
    assert leaves[0] == "su1-r0-leaf"
