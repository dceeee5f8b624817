"""Query and result models, one module per tool family."""
