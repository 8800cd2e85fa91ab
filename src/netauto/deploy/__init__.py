"""Deploy: push rendered files with Nornir + Netmiko, dry-run diffs, gshut drain, verified apply, rollback."""
