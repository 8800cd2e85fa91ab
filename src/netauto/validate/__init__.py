"""Validation of the model and of rendered files (external tools: `netauto.validate.external`)."""
