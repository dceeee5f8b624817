"""localSearchCode: rg's two passes (counts, then the page's matches), output modes, page fit and hints."""
