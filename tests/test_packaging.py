"""Distribution metadata: a name not taken on PyPI by another project, the Apache-2.0 license, the `netauto`
import package and command."""

from __future__ import annotations

import tomllib

from conftest import ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_distribution_name_import_package_and_command():
    # `netauto` on PyPI is an unrelated 2020 project: `pip install netauto` must not be the way in
    assert PROJECT["name"] == "netauto-fabric"
    assert PROJECT["scripts"] == {"netauto": "netauto.cli:main"}
    assert (ROOT / "src" / "netauto" / "__init__.py").is_file()


def test_apache_license_file_and_metadata():
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text and "END OF TERMS AND CONDITIONS" in text
    assert PROJECT["license"] == "Apache-2.0" and PROJECT["license-files"] == ["LICENSE"]
