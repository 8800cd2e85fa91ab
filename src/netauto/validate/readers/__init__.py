"""One reader per device file set: rendered files (parsed with `netauto.formats`) -> a state of
`netauto.validate.state`. `cumulus` (Linux files), `nvue` (startup.yaml), `sonic` (config_db.json + frr.conf),
`server` (netplan, sysctl.d, scripts, units). `netauto.validate.view.SWITCH_READERS` says which NOS uses which."""
