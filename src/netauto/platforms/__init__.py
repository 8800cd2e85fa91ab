"""Platform layer: the facts of each NOS x release x switch hardware, as data plus small typed accessors.

Everything below the model that a switch or NIC reads (file sets and on-device paths, NVUE spelling per
Cumulus release, supported release ranges, cages / lanes / lane rates / breakout modes, SONiC HWSKU port maps
and buffer lookup tables, where FRR runs) lives here. Renderers, validate rules, deploy and the lab ask this
package; none of them repeats a NOS fact.

  nos.py        NOS x release: supported releases, files a device gets and their paths, NVUE spelling tables
  hardware.py   switch hardware: cages, lanes per cage, lane rates, breakout modes, HWSKU port maps, buffers
  data/         the facts as YAML, each with its public source in a comment
"""
