#!/bin/sh
# su2-gpu31: /usr/local/sbin/netauto-roce-counters.sh rendered by netauto from fabric gpu-2su
# RoCE counters of the rail NICs for prometheus-node-exporter's textfile collector (node-exporter 1.5's
# infiniband collector does not read hw_counters). Writes /var/lib/prometheus/node-exporter/netauto-roce.prom atomically:
#   netauto_rdma_hw_stat_total{port,rdma_device,ib_port,counter}  /sys/class/infiniband/<dev>/ports/<p>/hw_counters/<counter>
#     (NVIDIA "Understanding mlx5 Linux Counters": np_cnp_sent, rp_cnp_handled, np_ecn_marked_roce_packets, ...)
#   netauto_nic_ethtool_stat_total{port,stat}  `ethtool -S <nic>` rx_prio<N>_pause / tx_prio<N>_pause, rx_prio<N>_discards,
#     rx_discards_phy, tx_pause_storm_{warning,error}_events (Linux Documentation/networking/device_drivers/
#     ethernet/mellanox/mlx5/counters.rst; names from mlx5 en_stats.c)
#   netauto_rail_nic_in_host{port}  1: the NIC is in the host's namespace; 0: moved out (attach: pf, a pod holds
#     it: its counters are the pod's until the pod ends)
#   netauto_rdma_vf_hw_stat_total{port,vf,rdma_device,ib_port,counter}  the VFs' hw_counters (pods' queue pairs),
#     <pf rdma device>/device/virtfn<N>/infiniband/<vf dev>/ports/<p>/hw_counters/<counter>
# Run by netauto-roce-counters.timer. Labels join the generated rules' netauto:rail_nic_expected (device, port).
set -eu
SYSFS=${NETAUTO_SYSFS:-/sys}
DIR=${NETAUTO_TEXTFILE_DIR:-/var/lib/prometheus/node-exporter}
COUNTERS='np_cnp_sent rp_cnp_handled np_ecn_marked_roce_packets out_of_sequence rp_cnp_ignored packet_seq_err'
VF_COUNTERS='out_of_sequence packet_seq_err'
STATS='rx_prio3_pause tx_prio3_pause rx_prio3_discards rx_discards_phy tx_pause_storm_warning_events tx_pause_storm_error_events'
# nic  rdma_device
NICS='
rail0 mlx5_0
rail1 mlx5_3
rail2 mlx5_4
rail3 mlx5_5
rail4 mlx5_6
rail5 mlx5_9
rail6 mlx5_10
rail7 mlx5_11
'
# Written as root: only into a folder nobody else may change. Another user owning it (Debian's /var/lib/prometheus
# is node-exporter's user's: that user may swap the textfile folder for its own) could replace the temp file by a
# link to any file between mktemp and chmod. `cd -P` pins the folder checked; every later path is relative to it.
cd -P "$DIR" || exit 1
case "$(stat -c %a .)" in *[2367]? | *[2367]) w=1 ;; *) w= ;; esac  # group or others may write in it
if [ ! -O . ] || [ -n "$w" ]; then
    echo "netauto-roce-counters: $DIR is another user's or writable by others: not written (make it root's, 0755)" >&2
    exit 1
fi
TMP=$(mktemp ./.netauto-roce.XXXXXX)
trap 'rm -f "$TMP"' EXIT
{
    echo "# HELP netauto_rdma_hw_stat_total RDMA hw_counters of the rail NICs (sysfs)"
    echo "# TYPE netauto_rdma_hw_stat_total counter"
    echo "$NICS" | while read -r nic dev; do
        [ -n "$nic" ] || continue
        for p in "$SYSFS/class/infiniband/$dev/ports/"*; do
            [ -d "$p/hw_counters" ] || continue
            for c in $COUNTERS; do
                [ -r "$p/hw_counters/$c" ] || continue
                printf 'netauto_rdma_hw_stat_total{port="%s",rdma_device="%s",ib_port="%s",counter="%s"} %s\n' \
                    "$nic" "$dev" "${p##*/}" "$c" "$(cat "$p/hw_counters/$c")"
            done
        done
    done
    echo "# HELP netauto_nic_ethtool_stat_total ethtool -S statistics of the rail NICs (RoCE priority pause frames and discards, PFC stall prevention)"
    echo "# TYPE netauto_nic_ethtool_stat_total counter"
    echo "$NICS" | while read -r nic dev; do
        [ -n "$nic" ] || continue
        ethtool -S "$nic" 2>/dev/null | while read -r name value; do
            for s in $STATS; do
                if [ "$name" = "$s:" ]; then
                    printf 'netauto_nic_ethtool_stat_total{port="%s",stat="%s"} %s\n' "$nic" "$s" "$value"
                fi
            done
        done
    done
    echo "# HELP netauto_rail_nic_in_host 1 when the rail NIC is in the host's network namespace, 0 when a pod holds it"
    echo "# TYPE netauto_rail_nic_in_host gauge"
    echo "$NICS" | while read -r nic dev; do
        [ -n "$nic" ] || continue
        in_host=0
        [ -e "$SYSFS/class/net/$nic" ] && in_host=1
        printf 'netauto_rail_nic_in_host{port="%s"} %s\n' "$nic" "$in_host"
    done
    echo "# HELP netauto_rdma_vf_hw_stat_total RDMA hw_counters of the rail NICs' SR-IOV VFs (the pods' queue pairs)"
    echo "# TYPE netauto_rdma_vf_hw_stat_total counter"
    echo "$NICS" | while read -r nic dev; do
        [ -n "$nic" ] || continue
        for p in "$SYSFS/class/infiniband/$dev/device/virtfn"*/infiniband/*/ports/*; do
            [ -d "$p/hw_counters" ] || continue
            vfdev=${p%/ports/*}
            vf=${vfdev%/infiniband/*}
            for c in $VF_COUNTERS; do
                [ -r "$p/hw_counters/$c" ] || continue
                printf 'netauto_rdma_vf_hw_stat_total{port="%s",vf="%s",rdma_device="%s",ib_port="%s",counter="%s"} %s\n' \
                    "$nic" "${vf##*/}" "${vfdev##*/}" "${p##*/}" "$c" "$(cat "$p/hw_counters/$c")"
            done
        done
    done
} >"$TMP"
chmod 0644 "$TMP"
mv "$TMP" ./netauto-roce.prom
trap - EXIT
