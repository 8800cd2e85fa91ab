"""SONiC: HWSKU port maps (data) and the config_db.json builder."""
