"""netauto: one source of truth for rail-optimized RoCEv2 GPU fabrics."""

__version__ = "0.1.0"
