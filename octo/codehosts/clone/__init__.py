"""Repositories brought home: archives extracted safely into the managed clone folder."""
