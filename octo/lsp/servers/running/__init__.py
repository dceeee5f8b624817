"""The pool of running language servers: started lazily, warmed for announced roots, stopped
when idle or over the memory budget, with its settings."""
