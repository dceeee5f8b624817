"""What a code host's API calls answer, in shapes the same for every host."""
