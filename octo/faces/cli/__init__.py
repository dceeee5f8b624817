"""The command line (`octo`): its commands, `octo call`'s reading for people, `octo hosts`, an index's progress."""
