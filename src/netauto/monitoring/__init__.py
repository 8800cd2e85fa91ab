"""Monitoring generated from intent: Prometheus rules and their unit tests, the scrape config and a Grafana
dashboard per fabric, written into the `monitoring/` pseudo-device folder of the output by netauto.render.monitoring."""
