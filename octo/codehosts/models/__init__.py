"""The tools' queries and results, and the items a host's replies are made of."""
