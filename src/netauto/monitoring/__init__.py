"""Monitoring generated from intent: Prometheus rules and their unit tests, the scrape config and a Grafana
dashboard per fabric, rendered into the `monitoring/` pseudo-device folder of the output (netauto.render)."""

from netauto.monitoring.render import MONITORING_DEVICE, monitoring_artifacts

__all__ = ["MONITORING_DEVICE", "monitoring_artifacts"]
