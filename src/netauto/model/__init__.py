"""Resolution of the source of truth into the fabric model."""

from netauto.model.resolve import resolve

__all__ = ["resolve"]
