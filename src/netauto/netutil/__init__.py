"""Small pure helpers on network values, one function per concept (in the manner of netutils): `ip` for
addresses and prefixes, `interface` for port names. Search here before writing another."""
