"""``python -m octo``: the same as the ``octo`` command."""

from octo.faces.cli.commands import main

raise SystemExit(main())
