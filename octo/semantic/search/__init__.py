"""Searching an index: the fused ranking, and hits widened to their symbol and marked when
weak."""
