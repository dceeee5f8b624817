"""``python -m octo``: the same as the ``octo`` command."""

from octo.cli import main

raise SystemExit(main())
