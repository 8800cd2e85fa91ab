#!/bin/sh
# gpu-pod1: label every GPU server's node with its server profile (netauto.io/server-profile); the SR-IOV
# policies and NIC templates select nodes by it. Node names are the inventory's server names.
set -eu
kubectl label node --overwrite gpu01 netauto.io/server-profile=dgx-h100
kubectl label node --overwrite gpu02 netauto.io/server-profile=dgx-h100
kubectl label node --overwrite gpu03 netauto.io/server-profile=dgx-h100
kubectl label node --overwrite gpu04 netauto.io/server-profile=dgx-h100
kubectl label node --overwrite gpu05 netauto.io/server-profile=dgx-h100
kubectl label node --overwrite gpu06 netauto.io/server-profile=dgx-h100
kubectl label node --overwrite gpu07 netauto.io/server-profile=dgx-h100
kubectl label node --overwrite gpu08 netauto.io/server-profile=dgx-h100
