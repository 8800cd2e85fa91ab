"""Every number of the fabric as a pure function of a device's identity (role, pod, SU, rail, group, index).

One small function per concept, no state: a device's loopback, ASN, management address, port and host
addresses come out the same whether it is resolved alone or with the whole fabric, in any order. Identity
numbers are 1-based (SU, pod, group, spine/super-spine index, server index), rails 0-based, as in the
inventory and the names; the functions say which numbers they return 0-based ("offset") and which 1-based.
"""

from __future__ import annotations

MGMT_FIRST_HOST = 10  # .1-.9 of a management pool stay free for gateways and jump hosts


# ------------------------------------------------------------------ positions in the topology
def pod_of_su(su: int, sus_per_pod: int) -> int:
    """The pod (1-based) of scalable unit `su`: SUs fill pods in order."""
    return (su - 1) // sus_per_pod + 1


def leaf_number(su: int, rail: int, rails: int) -> int:
    """Fabric-wide leaf number (1-based): SU-major, rail-minor. The leaf's loopback and ASN offset."""
    return (su - 1) * rails + rail + 1


def pod_leaf_offset(su: int, rail: int, sus_per_pod: int, rails: int) -> int:
    """The leaf's place (0-based) among the leaves of its pod: the spine port it lands on."""
    return ((su - 1) % sus_per_pod) * rails + rail


def spine_number(pod: int, index: int, spines_per_pod: int) -> int:
    """Fabric-wide spine number (1-based): pod-major."""
    return (pod - 1) * spines_per_pod + index


def super_spine_number(group: int, index: int, per_group: int) -> int:
    """Fabric-wide super-spine number (1-based): group-major."""
    return (group - 1) * per_group + index


def server_offset(su: int, index: int, servers_per_su: int) -> int:
    """Fabric-wide server number (0-based): SU-major. Its management address offset."""
    return (su - 1) * servers_per_su + index - 1


def firsts(sizes: list[int]) -> list[int]:
    """The first position (0-based) of each of consecutive blocks of `sizes`: the sum of the sizes before."""
    out, total = [], 0
    for size in sizes:
        out.append(total)
        total += size
    return out


def group_slot(position: int, per_group: int) -> tuple[int, int]:
    """(group, slot), both 1-based, of the `position`-th (0-based) member of groups of `per_group`."""
    return position // per_group + 1, position % per_group + 1


# ------------------------------------------------------------------ management
def switch_mgmt_offset(role: str, number: int, *, spines: int, super_spines: int) -> int:
    """A switch's place (0-based) in the switch management pool: super-spines first, then spines, then
    leaves, each tier in its own numbering (`number` is the tier's 1-based fabric-wide number)."""
    if role == "super_spine":
        return number - 1
    if role == "spine":
        return super_spines + number - 1
    if role == "leaf":
        return super_spines + spines + number - 1
    raise ValueError(f"no switch role {role!r}")


def mgmt_host(network: int, offset: int) -> int:
    """Address (as an integer) of the `offset`-th (0-based) device of a management pool, counted up from
    MGMT_FIRST_HOST above the pool's network address."""
    return network + MGMT_FIRST_HOST + offset


def top_host(network: int, size: int, offset: int) -> int:
    """Address of the `offset`-th (0-based) device counted down from the top of a pool of `size` addresses
    (the broadcast address stays free): the other end of the pool from `mgmt_host`, so neither side
    renumbers the other when it grows."""
    return network + size - 2 - offset


def default_gateway(network: int) -> int:
    """A pool's gateway unless the inventory names one: its first host."""
    return network + 1


# ------------------------------------------------------------------ loopbacks and ASNs (RFC 7938)
def loopback(network: int, number: int) -> int:
    """The `number`-th (1-based) address of a loopback pool."""
    return network + number


def leaf_asn(leaf_base: int, number: int) -> int:
    """Every leaf its own ASN."""
    return leaf_base + number - 1


def spine_asn(spine_base: int, pod: int) -> int:
    """The spines of a pod share one ASN."""
    return spine_base + pod - 1


# ------------------------------------------------------------------ ports
def port_offset(peer: int, link: int, links: int) -> int:
    """The logical port (0-based) of the `link`-th of `links` parallel cables to the `peer`-th (0-based) peer
    of a port range: peer-major, so each peer's cables sit side by side."""
    return peer * links + link


# ------------------------------------------------------------------ host links
def p2p_gateway(block: int, index: int) -> int:
    """p2p mode: the leaf end of server `index` (1-based)'s /31 in the leaf block; the server is the next one."""
    return block + 2 * (index - 1)


def shared_gateway(block: int) -> int:
    """leaf-subnet mode: the leaf's SVI address, the first host of the leaf block."""
    return block + 1


def shared_host(block: int, index: int) -> int:
    """leaf-subnet mode: server `index` (1-based) on the leaf block, after the gateway."""
    return block + 1 + index


def rail_table(table_base: int, rail: int) -> int:
    """The routing table of rail `rail` (0-based) on a server."""
    return table_base + rail + 1


def rail_rule_priority(rule_priority_base: int, rail: int) -> int:
    """The policy-rule priority of rail `rail` (0-based) on a server."""
    return rule_priority_base + rail + 1
