#!/bin/sh
# b300-02: /usr/local/sbin/netauto-nic-firmware.sh rendered by netauto from fabric gpu-b300
# Non-volatile NIC firmware settings (mlxconfig) of the rail NICs: Ethernet link, RoCE congestion control on
# priority 3, CNP DSCP 48 / priority 6, RoCE adaptive routing on (as the switches), and NIC mode
# on BlueField-3 SuperNICs. Parameter names and values: src/netauto/platforms/data/nics.yaml (with sources).
# Firmware settings apply at the next boot or after `mlxfwreset -d <pci> reset`, a BlueField mode change
# (INTERNAL_CPU_OFFLOAD_ENGINE) only after a host power cycle: this script never resets a NIC.
#
# Usage: netauto-nic-firmware.sh [--check | --apply]
#   --check (default)  query every rail NIC; report ok / drift / pending (set, waits for a reboot or firmware reset)
#   --apply            set what drifts (mlxconfig -y set), then report what needs a reboot or firmware reset
# Exit: 0 everything current; 1 drift (--check) or an error; 3 values set but pending: reboot,
#       `mlxfwreset -d <pci> reset` or a power cycle needed (each line says which); 2 bad usage.
# Needs mlxconfig (NVIDIA MFT, or mstflint's mstconfig with the same syntax via NETAUTO_MLXCONFIG=mstconfig).
set -u

MLXCONFIG=${NETAUTO_MLXCONFIG:-mlxconfig}
# rail  name  pci  kind
NICS='
0 r0p1 0000:03:00.0 connectx-8
1 r1p1 0000:23:00.0 connectx-8
2 r2p1 0000:43:00.0 connectx-8
3 r3p1 0000:63:00.0 connectx-8
4 r4p1 0000:83:00.0 connectx-8
5 r5p1 0000:a3:00.0 connectx-8
6 r6p1 0000:c3:00.0 connectx-8
7 r7p1 0000:e3:00.0 connectx-8
'

params() {  # kind -> NAME=VALUE ...
    case "$1" in
        connectx-8) echo "" ;;
        *) return 1 ;;
    esac
}

cold() {  # kind -> the parameters only a host power cycle activates
    case "$1" in
        connectx-8) echo "" ;;
        *) echo "" ;;
    esac
}

activation() {  # pci, kind, parameters -> what activates them
    for p in $3; do
        case " $(cold "$2") " in
            *" ${p%%=*} "*) echo "power cycle the host (a BlueField mode change: mlxfwreset and a warm reboot do not apply it)"; return ;;
        esac
    done
    echo "reboot or 'mlxfwreset -d $1 reset'"
}

MODE=check
case "${1:---check}" in
    --check) MODE=check ;;
    --apply) MODE=apply ;;
    *) echo "netauto-nic-firmware: usage: $0 [--check | --apply]" >&2; exit 2 ;;
esac

log() { echo "netauto-nic-firmware: $*"; }

mlx_value() {  # "mlxconfig -e query" output, parameter, column (1 default, 2 current, 3 next boot) -> number
    printf '%s\n' "$1" | awk -v p="$2" -v c="$3" '{ i = ($1 == "*") ? 2 : 1; if ($i == p) print $(i + c) }' \
        | sed 's/.*(\([0-9]*\)).*/\1/' | head -n 1
}

if ! command -v "$MLXCONFIG" >/dev/null 2>&1; then
    log "FAIL: $MLXCONFIG not found (install NVIDIA MFT or mstflint): firmware settings cannot be checked"
    exit 1
fi

errors=0
drift=0
pending=0
while read -r index name pci kind; do
    [ -n "$index" ] || continue
    if [ "$pci" = - ]; then
        log "$name: FAIL: no PCI address in the server profile: mlxconfig needs one (-d <pci>)"
        errors=$((errors + 1)); continue
    fi
    want=$(params "$kind") || { log "$name: FAIL: unknown NIC kind $kind"; errors=$((errors + 1)); continue; }
    if [ -z "$want" ]; then  # one owner per setting: kubernetes.nic_config in the inventory
        log "$name ($pci, $kind): not set here: the NIC Configuration Operator owns its firmware (NicConfigurationTemplate)"
        continue
    fi
    names=$(for pv in $want; do printf '%s ' "${pv%%=*}"; done)
    # shellcheck disable=SC2086 # names is a word list on purpose
    out=$("$MLXCONFIG" -d "$pci" -e query $names 2>&1) || {
        log "$name: FAIL: $MLXCONFIG -d $pci query failed: $(printf '%s' "$out" | tail -n 1)"
        errors=$((errors + 1)); continue
    }
    to_set=""
    for pv in $want; do
        p=${pv%%=*} v=${pv#*=}
        cur=$(mlx_value "$out" "$p" 2)
        nxt=$(mlx_value "$out" "$p" 3)
        if [ -z "$cur" ]; then
            log "$name ($pci, $kind): FAIL: $p not reported by this firmware"
            errors=$((errors + 1))
        elif [ "$cur" = "$v" ] && [ "$nxt" = "$v" ]; then
            log "$name ($pci, $kind): ok: $p $cur"
        elif [ "$nxt" = "$v" ]; then
            log "$name ($pci, $kind): pending: $p is $cur, $v after: $(activation "$pci" "$kind" "$p")"
            pending=$((pending + 1))
        else
            log "$name ($pci, $kind): drift: $p is $cur (next boot ${nxt:-?}), want $v"
            to_set="$to_set $p=$v"
        fi
    done
    if [ -n "$to_set" ] && [ "$MODE" = apply ]; then
        # shellcheck disable=SC2086 # to_set is a word list on purpose
        if res=$("$MLXCONFIG" -y -d "$pci" set $to_set 2>&1); then
            log "$name ($pci): set$to_set: $(activation "$pci" "$kind" "$to_set") to activate"
            pending=$((pending + $(echo "$to_set" | wc -w)))
        else
            log "$name ($pci): FAIL: $MLXCONFIG set$to_set: $(printf '%s' "$res" | tail -n 1)"
            errors=$((errors + 1))
        fi
    elif [ -n "$to_set" ]; then
        drift=$((drift + $(echo "$to_set" | wc -w)))
    fi
done <<EOF_NICS
$NICS
EOF_NICS

if [ "$errors" -gt 0 ] || [ "$drift" -gt 0 ]; then
    log "$errors error(s), $drift setting(s) drift$( [ "$MODE" = check ] && echo ' (run --apply)'), $pending pending"
    exit 1
fi
if [ "$pending" -gt 0 ]; then
    log "$pending setting(s) pending: activate them as listed above (reboot, mlxfwreset or a power cycle)"
    exit 3
fi
log "all rail NIC firmware settings current"
exit 0
