#!/bin/sh
# gpu-cloud: label every GPU server's node with its server profile (netauto.io/server-profile); the SR-IOV
# policies and NIC templates select nodes by it. Node names are the inventory's server names.
set -eu
kubectl label node --overwrite gpu1 netauto.io/server-profile=default
kubectl label node --overwrite gpu2 netauto.io/server-profile=default
kubectl label node --overwrite gpu3 netauto.io/server-profile=default
kubectl label node --overwrite gpu4 netauto.io/server-profile=default
# the tenant of each node (netauto.io/tenant): a tenant's pods select its nodes by it
kubectl label node --overwrite gpu1 netauto.io/tenant=acme
kubectl label node --overwrite gpu2 netauto.io/tenant=acme
kubectl label node --overwrite gpu3 netauto.io/tenant=globex
kubectl label node --overwrite gpu4 netauto.io/tenant=globex
