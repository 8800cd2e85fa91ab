"""Schema of `kubernetes.spectrum_x`: the NIC Configuration Operator's Spectrum-X block for compute planes.

With compute planes (`topology.compute_planes.count` 2 or 4) and `kubernetes.nic_config: nic-configuration-operator`
the NicConfigurationTemplate carries `spectrumXOptimized` (multiplaneMode, numberOfPlanes from the topology) instead
of `roceOptimized`. Its CRD (configuration.net.nvidia.com/v1alpha1, nic-configuration-operator 8bfbeb34, the copy
netauto checks against) requires `version` and, by CEL rule, `platformType` ("platformType is required when
Spectrum-X optimization is enabled"). Network Operator 26.10 "Spectrum-X NIC Configuration": "The
spectrumXOptimized.version field selects the architecture version, and platformType selects the hardware platform
... select version: RA2.4 with the corresponding platform type". Both name NVIDIA's Spectrum-X profile (a ConfigMap
NVIDIA supplies, not public): netauto passes them through and cannot check them against the profile.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from netauto.inventory.base import Strict

# a profile word: letters, digits, '.', '_', '-' (RA2.4, vr); bounded, no spaces, nothing a YAML reader re-types
ProfileWord = Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9._-]{0,62}$")]


class SpectrumX(Strict):
    """`kubernetes.spectrum_x:` which Spectrum-X profile the NIC Configuration Operator applies to the plane NICs."""

    version: ProfileWord  # spectrumXOptimized.version, e.g. RA2.4 (Network Operator 26.10)
    platform_type: ProfileWord  # spectrumXOptimized.platformType: the profile's name for the GPU platform
    # spectrumXOptimized.overlay (CRD enum l3, none): the quick starts' "none"; netauto renders no overlay on the NICs
    overlay: Literal["none"] = "none"
