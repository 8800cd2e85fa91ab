"""Fabric documentation from the resolved model: a Markdown document, a Graphviz topology and the cabling CSV."""

from netauto.docs.markdown import fabric_markdown
from netauto.docs.topology import aggregate_dot, su_detail_dot
from netauto.docs.writer import DocsResult, cabling_csv, write_docs

__all__ = ["DocsResult", "aggregate_dot", "cabling_csv", "fabric_markdown", "su_detail_dot", "write_docs"]
