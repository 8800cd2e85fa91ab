"""Exports of the resolved model for other tools (Ansible inventory)."""
