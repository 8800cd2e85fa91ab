"""Nornir tasks of netauto (shipped inside the package as netauto.tasks)."""
