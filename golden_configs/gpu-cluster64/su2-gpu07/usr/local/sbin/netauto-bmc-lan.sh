#!/bin/sh
# su2-gpu07: /usr/local/sbin/netauto-bmc-lan.sh rendered by netauto from cluster gpu-cluster64
# The BMC's out-of-band address (OOB pool 192.168.210.0/24), set in-band through IPMI LAN channel 1
# (ipmitool(1), "lan set <channel> ipsrc|ipaddr|netmask|defgw ipaddr").
set -eu
CHANNEL=${NETAUTO_BMC_CHANNEL:-1}
ipmitool lan set "$CHANNEL" ipsrc static
ipmitool lan set "$CHANNEL" ipaddr 192.168.210.48
ipmitool lan set "$CHANNEL" netmask 255.255.255.0
ipmitool lan set "$CHANNEL" defgw ipaddr 192.168.210.1
