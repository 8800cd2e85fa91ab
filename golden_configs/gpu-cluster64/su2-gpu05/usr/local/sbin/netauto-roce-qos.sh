#!/bin/sh
# su2-gpu05: /usr/local/sbin/netauto-roce-qos.sh rendered by netauto from fabric gpu-cluster64
# Host RoCE QoS matching the switches: trust DSCP, PFC on priority 3 only,
# RoCE ToS 106 (DSCP 26), DCQCN ECN on the RoCE priority.
# CNP: the NIC must mark CNPs with DSCP 48 / priority 6
# (ConnectX firmware CNP_DSCP_P1 / CNP_802P_PRIO_P1) so the switches queue them strict.
set -eu

configure_rail() {
    netdev=$1 rdma=$2
    mlnx_qos -i "$netdev" --trust=dscp --pfc=0,0,0,1,0,0,0,0
    if [ -d "/sys/kernel/config/rdma_cm" ]; then
        mkdir -p "/sys/kernel/config/rdma_cm/$rdma"
        echo 106 > "/sys/kernel/config/rdma_cm/$rdma/ports/1/default_roce_tos"
        rmdir "/sys/kernel/config/rdma_cm/$rdma"
    fi
    echo 106 > "/sys/class/infiniband/$rdma/tc/1/traffic_class"
    echo 1 > "/sys/class/net/$netdev/ecn/roce_np/enable/3"
    echo 1 > "/sys/class/net/$netdev/ecn/roce_rp/enable/3"
}

configure_rail rail0 mlx5_0
configure_rail rail1 mlx5_1
configure_rail rail2 mlx5_2
configure_rail rail3 mlx5_3
configure_rail rail4 mlx5_4
configure_rail rail5 mlx5_5
configure_rail rail6 mlx5_6
configure_rail rail7 mlx5_7
