"""--limit: the Ansible/Nornir pattern language over device names and groups, with exit 2 and close matches
for a term that matches nothing."""

from __future__ import annotations

import pytest

from netauto.deploy.limit import groups_for, select
from netauto.errors import UsageError

# name -> groups, in deploy order (as deploy builds it from the targets)
FABRIC = {
    "spine1": groups_for("switch", "spine", "cumulus", None, 1),
    "spine2": groups_for("switch", "spine", "sonic", None, 1),
    "su1-r0-leaf": groups_for("switch", "leaf", "sonic", 1, 1),
    "su1-r1-leaf": groups_for("switch", "leaf", "cumulus", 1, 1),
    "su2-r0-leaf": groups_for("switch", "leaf", "cumulus", 2, 1),
    "gpu01": groups_for("server", "server", "linux", 1),
    "gpu02": groups_for("server", "server", "linux", 2),
}


@pytest.mark.parametrize("limit, expected", [
    (None, list(FABRIC)),
    ("spine2,spine1", ["spine1", "spine2"]),  # union, in deploy order
    ("spine1:gpu01", ["spine1", "gpu01"]),  # Ansible's `:` separator
    ("su1-*", ["su1-r0-leaf", "su1-r1-leaf"]),  # glob over names
    ("role_spine", ["spine1", "spine2"]),
    ("role=leaf", ["su1-r0-leaf", "su1-r1-leaf", "su2-r0-leaf"]),
    ("nos=sonic", ["spine2", "su1-r0-leaf"]),
    ("kind=server", ["gpu01", "gpu02"]),
    ("role=*spine", ["spine1", "spine2"]),  # glob value
    ("su_1,&role=leaf", ["su1-r0-leaf", "su1-r1-leaf"]),  # intersection
    ("su=1:&switches", ["su1-r0-leaf", "su1-r1-leaf"]),
    ("switches,!spine1", ["spine2", "su1-r0-leaf", "su1-r1-leaf", "su2-r0-leaf"]),  # exclusion
    ("!servers", ["spine1", "spine2", "su1-r0-leaf", "su1-r1-leaf", "su2-r0-leaf"]),  # exclusions only: from all
    ("!role_leaf,&nos_cumulus", ["spine1"]),  # order-independent
    ("role_leaf,&nos_cumulus,!su2-*", ["su1-r1-leaf"]),
])
def test_limit_patterns(limit, expected):
    assert select(FABRIC, limit) == expected


@pytest.mark.parametrize("limit, message", [
    ("su1-r0-leef", "did you mean su1-r0-leaf"),
    ("spine1,spien2", "'spien2' matches no device or group; did you mean spine2"),
    ("role=leef", "did you mean role_leaf"),
    ("!gpu99", "'!gpu99' matches no device"),  # a typo in an exclusion is an error too
    ("colour=red", "unknown key 'colour'"),
    ("spine1,&servers", "leaves no device"),
    ("spine1,!", "'!' needs a device or group"),
])
def test_bad_limit_is_a_usage_error_with_close_matches(limit, message):
    with pytest.raises(UsageError) as exc:
        select(FABRIC, limit)
    assert message in str(exc.value) and exc.value.exit_code == 2
