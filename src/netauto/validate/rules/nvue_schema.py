"""Cumulus: every startup.yaml matches NVIDIA's NVUE schema of the fabric's target release (nvueschema)."""

from __future__ import annotations

from collections.abc import Iterator

from netauto.platforms.nos import cumulus_path, unsupported_release
from netauto.validate.findings import Finding
from netauto.validate.nvue_schema import Memo, check, line_of
from netauto.validate.rules import rule
from netauto.validate.state import ParsedFabric

NVUE = cumulus_path("nvue")
MAX_PER_DEVICE = 20


@rule(id="NVUE-01", severity="error",
      description="Cumulus: startup.yaml has only keys and values of NVIDIA's NVUE schema for the target release")
def nvue_schema(view: ParsedFabric) -> Iterator[Finding]:
    memo: Memo = {}  # the switches' trees share their unchanged subtrees (view.Readers): each is checked once
    for dev, tree in view.nvue_raw.items():
        release = view.intent(dev).cumulus_release
        why = unsupported_release(release)
        if why:
            yield Finding("NVUE-01", "error", dev, why, NVUE)
            continue
        problems = check(tree, release, memo)
        if not problems:
            continue
        text = view.files.get(dev, NVUE) or ""
        for p in problems[:MAX_PER_DEVICE]:
            key = ".".join(p.path) or "(root)"
            yield Finding("NVUE-01", "error", dev, f"CL {release} NVUE schema: {key}: {p.message}", NVUE,
                          line_of(text, p.path))
        if len(problems) > MAX_PER_DEVICE:
            yield Finding("NVUE-01", "error", dev, f"CL {release} NVUE schema: {len(problems) - MAX_PER_DEVICE} "
                          "more problems", NVUE)
