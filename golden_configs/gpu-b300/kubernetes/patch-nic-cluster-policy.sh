#!/bin/sh
# gpu-b300: merge the rail resources into the live NicClusterPolicy (its other components stay).
set -eu
cd "$(dirname "$0")"
kubectl patch nicclusterpolicy nic-cluster-policy --type merge --patch-file nic-cluster-policy.patch.yaml
