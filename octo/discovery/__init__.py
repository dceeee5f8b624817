"""The gateway's own tools: paging through content answers cut (getCachedContent), the tools
by category (getToolCategories) and the first-time guide (firstTimeUserGuide)."""
