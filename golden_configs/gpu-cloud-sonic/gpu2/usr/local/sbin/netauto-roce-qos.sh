#!/bin/sh
# gpu2: /usr/local/sbin/netauto-roce-qos.sh rendered by netauto from fabric gpu-cloud-sonic
# Host RoCE QoS matching the switches, per rail NIC, set and read back: trust DSCP, PFC on priority
# 3 only, RoCE ToS 106 (DSCP 26), DCQCN ECN on priority 3, CNPs sent with
# DSCP 48 / 802.1p priority 6 (the switches' strict CNP class).
# This state is runtime only (lost on reboot, driver reload, firmware reset): netauto-roce-qos.service runs this at
# boot and netauto-roce-qos@<rail>.service (started by 90-netauto-rails.rules) when a rail NIC is added again.
#
# Usage: netauto-roce-qos.sh [--check] [RAIL...]     (no RAIL: every rail of this server)
#   --check   read only: report what differs from intent, change nothing
# Exit: 0 every selected rail set and read back; 1 at least one rail failed (every rail is tried; one failing rail
#       never hides the others); 2 bad usage.
# Environment: NETAUTO_ROOT prefix for /sys (a fake sysfs tree in tests), NETAUTO_WAIT seconds to wait for a NIC (30).
#
# Sources: mlnx_qos --trust/--pfc and the ecn sysfs (MLNX_OFED/DOCA "Explicit Congestion Notification (ECN)":
# /sys/class/net/<if>/ecn/roce_np|roce_rp/enable/<prio>, roce_np/cnp_dscp, roce_np/cnp_802p_prio); inbox driver:
# iproute2 dcb(8) app dscp-prio (mlx5 switches the port to trust dscp on the first DSCP APP entry) and dcb pfc;
# RDMA-CM default ToS: Linux Documentation/ABI/testing/configfs-rdma_cm (default_roce_tos); verbs
# /sys/class/infiniband/<dev>/tc/1/traffic_class exists only with MLNX_OFED/DOCA; without the ecn sysfs the
# firmware (mlxconfig ROCE_CC_PRIO_MASK_P1, CNP_DSCP_P1, CNP_802P_PRIO_P1) holds ECN/CNP: read back here, set by
# netauto-nic-firmware.sh.
set -u

ROOT=${NETAUTO_ROOT:-}
WAIT=${NETAUTO_WAIT:-30}
TOS=106
ROCE_DSCP=26
PRIO=3
PFC=0,0,0,1,0,0,0,0
PFC_MAP='0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off'
CNP_DSCP=48
CNP_PRIO=6
CC_MASK=8
# cable length and global pause: set here when the owner is "host"; "nic-configuration-operator" (kubernetes.nic_config)
# sets them from its NicConfigurationTemplate (cableLen, pauseFrames) and this script leaves them alone
PORT_BUFFER_OWNER=host
# rail  name  rdma  pci  mac  cable-metres   (profile default, unspecified)
RAILS='
0 rail0 mlx5_0 0000:18:00.0 - 100
1 rail1 mlx5_3 0000:40:00.0 - 100
'

MODE=apply
case "${1:-}" in
    --check) MODE=check; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "netauto-roce-qos: unknown option $1 (use --check)" >&2; exit 2 ;;
esac
for want in "$@"; do
    printf '%s\n' "$RAILS" | awk -v n="$want" '$2 == n { found = 1 } END { exit !found }' || {
        echo "netauto-roce-qos: no rail NIC $want on gpu2 (rails:$(printf '%s\n' "$RAILS" | awk 'NF { printf " %s", $2 }'))" >&2
        exit 2
    }
done

log() { echo "netauto-roce-qos: $*"; }
ok() { log "$RAIL: ok: $*"; }
fail() { log "$RAIL: FAIL: $*"; RAIL_OK=0; }

# write (unless --check) and read back one sysfs/configfs value
put() {  # path value label
    if [ ! -e "$1" ]; then fail "$3: no $1"; return; fi
    if [ "$MODE" = apply ]; then
        printf '%s\n' "$2" 2>/dev/null > "$1" || { fail "$3: cannot write $2 to $1"; return; }
    fi
    got=$(sed 's/.*=//; s/[[:space:]]//g' "$1" 2>/dev/null)
    if [ "$got" = "$2" ]; then ok "$3 $got"; else fail "$3 is ${got:-empty}, want $2 ($1)"; fi
}

find_netdev() {  # name pci mac -> the netdev now carrying this rail
    if [ -e "$ROOT/sys/class/net/$1" ]; then echo "$1"; return 0; fi
    if [ "$2" != - ]; then
        for d in "$ROOT/sys/bus/pci/devices/$2/net"/*; do
            if [ -e "$d" ]; then basename "$d"; return 0; fi
        done
    fi
    if [ "$3" != - ]; then
        for a in "$ROOT"/sys/class/net/*/address; do
            if [ -e "$a" ] && [ "$(cat "$a")" = "$3" ]; then basename "$(dirname "$a")"; return 0; fi
        done
    fi
    return 1
}

find_rdma() {  # netdev -> its RDMA device
    for d in "$ROOT/sys/class/net/$1/device/infiniband"/*; do
        if [ -d "$d" ]; then basename "$d"; return 0; fi
    done
    return 1
}

wait_for() {  # command... : retry for up to $WAIT seconds (a NIC being added or reset)
    n=0
    while ! "$@"; do
        n=$((n + 1))
        if [ "$n" -gt "$WAIT" ]; then return 1; fi
        sleep 1
    done
}

mlx_value() {  # "mlxconfig -e query" output, parameter, column (1 default, 2 current, 3 next boot) -> number
    printf '%s\n' "$1" | awk -v p="$2" -v c="$3" '{ i = ($1 == "*") ? 2 : 1; if ($i == p) print $(i + c) }' \
        | sed 's/.*(\([0-9]*\)).*/\1/' | head -n 1
}

trust_pfc() {  # netdev
    if command -v mlnx_qos >/dev/null 2>&1; then
        if [ "$MODE" = apply ] && ! mlnx_qos -i "$1" --trust=dscp --pfc="$PFC" >/dev/null 2>&1; then
            fail "mlnx_qos -i $1 --trust=dscp --pfc=$PFC failed"
        fi
        out=$(mlnx_qos -i "$1" 2>/dev/null) || { fail "mlnx_qos -i $1 cannot read the QoS state"; return; }
        trust=$(printf '%s\n' "$out" | sed -n 's/^Priority trust state:[[:space:]]*//p')
        pfc=$(printf '%s\n' "$out" | sed -n '/^PFC configuration/,$ s/^[[:space:]]*enabled[[:space:]]*//p' | head -n 1 \
            | awk '{ $1 = $1; gsub(/ /, ","); print }')
    elif command -v dcb >/dev/null 2>&1; then
        if [ "$MODE" = apply ]; then
            dcb app replace dev "$1" dscp-prio "$ROCE_DSCP:$PRIO" "$CNP_DSCP:$CNP_PRIO" >/dev/null 2>&1 \
                || fail "dcb app replace dev $1 dscp-prio $ROCE_DSCP:$PRIO $CNP_DSCP:$CNP_PRIO failed"
            # shellcheck disable=SC2086 # PFC_MAP is one word per priority
            dcb pfc set dev "$1" prio-pfc $PFC_MAP >/dev/null 2>&1 || fail "dcb pfc set dev $1 prio-pfc $PFC_MAP failed"
        fi
        apps=$(dcb app show dev "$1" dscp-prio 2>/dev/null) || { fail "dcb app show dev $1 failed"; return; }
        trust=pcp
        case " $apps " in *" $ROCE_DSCP:$PRIO "*) trust=dscp ;; esac
        pfc=$(dcb pfc show dev "$1" prio-pfc 2>/dev/null | tr ' ' '\n' | sed -n 's/^[0-7]:\(on\|off\)$/\1/p' \
            | awk '{ printf "%s%s", (NR > 1 ? "," : ""), ($1 == "on") ? 1 : 0 }')
    else
        fail "neither mlnx_qos (MLNX_OFED/DOCA) nor dcb (iproute2) found: trust and PFC not set"
        return
    fi
    if [ "$trust" = dscp ]; then ok "trust dscp"; else fail "trust is ${trust:-unknown}, want dscp"; fi
    if [ "$pfc" = "$PFC" ]; then ok "PFC $pfc"; else fail "PFC is ${pfc:-unknown}, want $PFC"; fi
}

port_buffer() {  # netdev cable-metres
    # mlx5 sizes the receive headroom for a 7 m cable (en/port_buffer.h MLX5E_DEFAULT_CABLE_LEN) unless told the
    # link's length: mlnx_qos --cable_len, or dcb pfc delay (mlx5 en_dcbnl.c takes ieee_pfc.delay as the cable
    # length in metres). Global (802.3x) pause off: PFC only on the RoCE priority (ethtool -A / -a).
    if [ "$PORT_BUFFER_OWNER" != host ]; then
        log "$RAIL: info: cable length and global pause owned by the NIC Configuration Operator (cableLen, pauseFrames)"
        return
    fi
    if command -v mlnx_qos >/dev/null 2>&1; then
        if [ "$MODE" = apply ] && ! mlnx_qos -i "$1" --cable_len="$2" >/dev/null 2>&1; then
            fail "mlnx_qos -i $1 --cable_len=$2 failed"
        fi
        len=$(mlnx_qos -i "$1" 2>/dev/null | sed -n 's/^Cable len:[[:space:]]*//p')
    elif command -v dcb >/dev/null 2>&1; then
        if [ "$MODE" = apply ]; then
            dcb pfc set dev "$1" delay "$2" >/dev/null 2>&1 || fail "dcb pfc set dev $1 delay $2 failed"
        fi
        len=$(dcb pfc show dev "$1" delay 2>/dev/null | sed -n 's/.*delay[[:space:]]*\([0-9]*\).*/\1/p')
    else
        len=""
    fi
    if [ "$len" = "$2" ]; then ok "cable length $len m"; else fail "cable length is ${len:-unknown} m, want $2 m"; fi
    if [ "$MODE" = apply ]; then  # its exit status when nothing changes differs by driver: the read-back decides
        ethtool -A "$1" rx off tx off >/dev/null 2>&1
    fi
    pause=$(ethtool -a "$1" 2>/dev/null | awk '$1 == "RX:" { rx = $2 } $1 == "TX:" { tx = $2 } END { print "rx " rx " tx " tx }')
    if [ "$pause" = "rx off tx off" ]; then ok "global pause $pause"
    else fail "global pause is ${pause:-unknown}, want rx off tx off"; fi
}

roce_tos() {  # rdma
    cfg=$ROOT/sys/kernel/config/rdma_cm
    if [ ! -d "$cfg" ] && [ -z "$ROOT" ]; then
        modprobe rdma_cm 2>/dev/null
        [ -d /sys/kernel/config/rdma_cm ] || mount -t configfs none /sys/kernel/config 2>/dev/null
    fi
    if [ ! -d "$cfg" ]; then fail "no $cfg (configfs not mounted or rdma_cm not loaded): RDMA-CM ToS not set"; return; fi
    made=0
    if [ ! -d "$cfg/$1" ]; then
        mkdir "$cfg/$1" 2>/dev/null || { fail "cannot create $cfg/$1"; return; }
        made=1
    fi
    put "$cfg/$1/ports/1/default_roce_tos" "$TOS" "RDMA-CM default ToS"
    if [ "$made" = 1 ]; then rmdir "$cfg/$1" 2>/dev/null; fi
    tc=$ROOT/sys/class/infiniband/$1/tc/1/traffic_class
    if [ -e "$tc" ]; then
        put "$tc" "$TOS" "verbs traffic class"
    else
        log "$RAIL: info: no $tc (inbox driver): verbs users set their own traffic class (NCCL_IB_TC=$TOS in /etc/nccl.conf)"
    fi
}

ecn_cnp() {  # netdev pci
    e=$ROOT/sys/class/net/$1/ecn
    if [ -d "$e" ]; then
        put "$e/roce_np/enable/$PRIO" 1 "ECN notification point on priority $PRIO"
        put "$e/roce_rp/enable/$PRIO" 1 "ECN reaction point on priority $PRIO"
        put "$e/roce_np/cnp_dscp" "$CNP_DSCP" "CNP DSCP"
        put "$e/roce_np/cnp_802p_prio" "$CNP_PRIO" "CNP 802.1p priority"
    elif [ "$2" != - ] && command -v mlxconfig >/dev/null 2>&1; then
        out=$(mlxconfig -d "$2" -e query ROCE_CC_PRIO_MASK_P1 CNP_DSCP_P1 CNP_802P_PRIO_P1 2>/dev/null) \
            || { fail "mlxconfig -d $2 query failed: ECN/CNP unverified"; return; }
        for pv in ROCE_CC_PRIO_MASK_P1:$CC_MASK CNP_DSCP_P1:$CNP_DSCP CNP_802P_PRIO_P1:$CNP_PRIO; do
            got=$(mlx_value "$out" "${pv%%:*}" 2)
            if [ "$got" = "${pv#*:}" ]; then ok "firmware ${pv%%:*} $got"
            else fail "firmware ${pv%%:*} is ${got:-unknown}, want ${pv#*:} (netauto-nic-firmware.sh --apply)"; fi
        done
    else
        fail "no $e (inbox driver) and no mlxconfig: ECN and CNP marking can be neither set nor verified"
    fi
}

total=0
failed=""
while read -r index name rdma pci mac cable; do
    [ -n "$index" ] || continue
    if [ "$#" -gt 0 ]; then
        case " $* " in *" $name "*) ;; *) continue ;; esac
    fi
    RAIL=$name
    RAIL_OK=1
    total=$((total + 1))
    if ! wait_for find_netdev "$name" "$pci" "$mac" >/dev/null; then
        fail "rail $index NIC not found (name $name, PCI $pci, MAC $mac) after ${WAIT}s"
        failed="$failed $name"
        continue
    fi
    dev=$(find_netdev "$name" "$pci" "$mac")
    if [ "$dev" != "$name" ]; then
        fail "rail $index NIC is named $dev, not $name (the .link/netplan rename did not apply; reboot or udevadm trigger)"
    fi
    log "$RAIL: rail $index netdev $dev pci $pci ($MODE)"
    trust_pfc "$dev"
    port_buffer "$dev" "$cable"
    if wait_for find_rdma "$dev" && r=$(find_rdma "$dev"); then
        if [ "$r" = "$rdma" ]; then ok "RDMA device $r"
        else fail "RDMA device is $r, the inventory (and NCCL_IB_HCA) says $rdma"; fi
        roce_tos "$r"
    else
        fail "$dev has no RDMA device after ${WAIT}s (mlx5_ib loaded?): RDMA-CM ToS not set"
    fi
    ecn_cnp "$dev" "$pci"
    if [ "$RAIL_OK" = 1 ]; then log "$RAIL: OK"; else log "$RAIL: FAILED"; failed="$failed $name"; fi
done <<EOF_RAILS
$RAILS
EOF_RAILS

if [ -n "$failed" ]; then
    log "$(( total - $(echo "$failed" | wc -w) )) of $total rail(s) OK; FAILED:$failed"
    exit 1
fi
log "$total of $total rail(s) OK"
exit 0
