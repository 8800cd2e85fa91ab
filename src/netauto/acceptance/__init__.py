"""`netauto acceptance`: line-rate tests planned from the cabling plan, run over SSH, and the bad part named.

plan (planner, commands, expect) -> run (runner, script) -> report (results, localise, report).
"""
