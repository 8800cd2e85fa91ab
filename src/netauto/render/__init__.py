"""Rendering: resolved model -> per-device files, laid out by on-device path.

Nothing is imported here: `netauto.render.fingerprint` (stdlib only) answers an up-to-date `netauto render` before
Jinja2 and the model load, and importing a submodule runs this file first.
"""
