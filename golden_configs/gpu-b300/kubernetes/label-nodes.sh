#!/bin/sh
# gpu-b300: label every GPU server's node with its server profile (netauto.io/server-profile); the SR-IOV
# policies and NIC templates select nodes by it. Node names are the inventory's server names.
set -eu
kubectl label node --overwrite b300-01 netauto.io/server-profile=b300
kubectl label node --overwrite b300-02 netauto.io/server-profile=b300
kubectl label node --overwrite b300-03 netauto.io/server-profile=b300
kubectl label node --overwrite b300-04 netauto.io/server-profile=b300
