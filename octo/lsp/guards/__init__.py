"""What a language server's answer may carry out of octo: nothing about a file outside the
allowed roots (``outside_roots``), and no secret value of the workspace unknown to the call
(``workspace_values``). Navigation and outline answers both pass them."""
