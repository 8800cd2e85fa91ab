"""What the monitoring exporters really publish: metric names, labels and listen ports, each with its source.

Read back from the exporters themselves where this machine runs them (Debian 12 packages, run in a lab node:
`netauto lab up --monitoring`, then `curl <node>:<port>/metrics`), and from their source:

* prometheus-frr-exporter 1.1.4 (tynany/frr_exporter, collector/bgp.go): `frr_bgp_peer_state` gauge
  "State of the peer (2 = Administratively Down, 1 = Established, 0 = Down)", labels afi, safi, vrf, local_as,
  peer, peer_as; `peer` is the neighbour as FRR names it (the interface of an unnumbered session, else the
  address). Default listen port 9342 (the exporter's --web.listen-address default).
* prometheus-node-exporter 1.5.0 (prometheus/node_exporter): collector/netclass_linux.go publishes
  `node_network_up` (operstate == "up") and `node_network_carrier_changes_total`; collector/netdev_linux.go the
  /proc/net/dev counters `node_network_{receive,transmit}_{bytes,drop,errs}_total`; every one labelled `device`
  = the interface. collector/textfile.go reads `*.prom` files from --collector.textfile.directory. Port 9100.
  Its infiniband collector (1.5.0) reads ports/*/counters only, not hw_counters: the RoCE counters come from
  netauto's textfile script (below).
* netauto's own exporters (this repository, so their names are defined here): the host script
  `netauto-roce-counters.sh` (RDMA hw_counters and the per-priority pause counters of `ethtool -S`) and
  `netauto verify --format openmetrics` (one gauge per finding).
"""

from __future__ import annotations

# ---------------------------------------------------------------- which switches run the exporters
# The NOSes whose switches the rendered prometheus.yml scrapes with the frr- and node-exporter (installed by the
# operator from Debian's packages: Cumulus Linux 5.x is Debian-based and runs FRR as frr.service). SONiC runs
# neither: its switch telemetry is the gNMI server of the `telemetry`/`gnmi` container (sonic-gnmi, gRPC), not
# the Prometheus exposition format, and netauto installs nothing in its containers; a SONiC switch is therefore
# not a scrape target and its sessions and ports are no intent series (they are judged by `netauto verify`).
SCRAPED_NOS = frozenset({"cumulus"})

# ---------------------------------------------------------------- prometheus-frr-exporter
FRR_EXPORTER_PORT = 9342
FRR_BGP_PEER_STATE = "frr_bgp_peer_state"  # 1 = Established
FRR_ESTABLISHED = 1

# ---------------------------------------------------------------- prometheus-node-exporter
NODE_EXPORTER_PORT = 9100
NODE_NETWORK_UP = "node_network_up"
NODE_CARRIER_CHANGES = "node_network_carrier_changes_total"
NODE_TX_BYTES = "node_network_transmit_bytes_total"
# verify's "discards" (ip -s link: rx/tx dropped + errors) are these four /proc/net/dev counters
NODE_DISCARDS = ("node_network_receive_drop_total", "node_network_receive_errs_total",
                 "node_network_transmit_drop_total", "node_network_transmit_errs_total")
# node-exporter labels every netdev/netclass series with `device` (the interface). The scrape target's own
# `device` label (the switch or server) wins (honor_labels: false), the scraped one becomes `exported_device`,
# which the rendered scrape config renames to `port` (Prometheus docs, scrape_config honor_labels).
NODE_IFACE_LABEL_CONFLICT = "exported_device"

# ---------------------------------------------------------------- netauto-roce-counters.sh (textfile collector)
# RDMA hw_counters of a ConnectX port (/sys/class/infiniband/<dev>/ports/<p>/hw_counters/<name>; NVIDIA
# "Understanding mlx5 Linux Counters"), and the per-priority pause counters of `ethtool -S` (Linux
# Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst: rx_prio[i]_pause, tx_prio[i]_pause)
RDMA_HW_COUNTER = "netauto_rdma_hw_stat_total"  # labels: rdma_device, ib_port, counter
ETHTOOL_STAT = "netauto_nic_ethtool_stat_total"  # labels: nic, stat
HW_COUNTERS = ("np_cnp_sent", "rp_cnp_handled", "np_ecn_marked_roce_packets", "out_of_sequence",
               "rp_cnp_ignored", "packet_seq_err")
# RoCE loss on the NIC, `ethtool -S` names from Linux drivers/net/ethernet/mellanox/mlx5/core/en_stats.c:
# pport_per_prio_traffic_stats_desc "rx_prio%d_discards" (per priority, formatted with the RoCE priority),
# pport_2863_stats_desc "rx_discards_phy" (if_in_discards: no receive buffer), pport_pfc_stall_stats_desc
# "tx_pause_storm_warning_events" / "tx_pause_storm_error_events" (the NIC's PFC stall prevention; error = it
# stopped sending pause frames, "drop could have been occurred": counters.rst)
PRIO_STATS = ("rx_prio{p}_pause", "tx_prio{p}_pause", "rx_prio{p}_discards")
PORT_STATS = ("rx_discards_phy", "tx_pause_storm_warning_events", "tx_pause_storm_error_events")
NIC_DISCARD_STATS = ("rx_prio{p}_discards", "rx_discards_phy")  # lossless RoCE: any increase is loss
PAUSE_STORM_STAT = "tx_pause_storm_error_events"
SEQUENCE_COUNTERS = ("packet_seq_err", "out_of_sequence")  # hw_counters: NAK-sequence errors, out-of-order arrivals
TEXTFILE_DIR = "/var/lib/prometheus/node-exporter"  # Debian's prometheus-node-exporter default (/etc/default)
# What a pod hides from the host (docs/kubernetes.md): SR-IOV VFs keep the queue-pair counters of the pods' QPs
# (out_of_sequence, packet_seq_err count per function), read through the PF's PCI device
# (<pf>/device/virtfn<N>/infiniband/<vf-dev>/ports/<p>/hw_counters, the Linux PCI sysfs layout); attach: pf moves
# the NIC itself out of the host's namespace while a pod holds it, so its counters stop: a gauge says so
RDMA_VF_HW_COUNTER = "netauto_rdma_vf_hw_stat_total"  # labels: port (the PF), vf (virtfn<N>), rdma_device, ...
VF_HW_COUNTERS = ("out_of_sequence", "packet_seq_err")
RAIL_NIC_IN_HOST = "netauto_rail_nic_in_host"  # labels: port; 1 in the host's namespace, 0 moved out (a pod)
ROCE_TEXTFILE = "netauto-roce.prom"  # the script's output file in TEXTFILE_DIR
# node-exporter's textfile collector: `node_textfile_mtime_seconds{file}` per file read (collector/textfile.go);
# Debian's 1.5.0 labels it with the full path (read back: `file="/var/lib/prometheus/node-exporter/x.prom"`),
# later releases with the base name: match both
NODE_TEXTFILE_MTIME = "node_textfile_mtime_seconds"


def prio_stats(priority: int) -> list[str]:
    """The `ethtool -S` statistics the counters script collects for a NIC whose RoCE priority is `priority`."""
    return [s.format(p=priority) for s in PRIO_STATS] + list(PORT_STATS)


def textfile_match(name: str) -> str:
    """A PromQL regex matching node_textfile_mtime_seconds's `file` label of `name` (full path or base name)."""
    return "(.*/)?" + name.replace(".", "\\\\.")

# ---------------------------------------------------------------- netauto verify --format openmetrics
VERIFY_FINDING = "netauto_verify_finding_failed"  # labels: check, device, item, port, network; 1 = fail/error
VERIFY_VALUE = "netauto_verify_window_increase"  # counters check: the increase over the window
VERIFY_LAST_RUN = "netauto_verify_last_run_timestamp_seconds"
VERIFY_OK = "netauto_verify_ok"
