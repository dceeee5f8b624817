"""localGetFileContent: a file read whole, by lines, or around matchString."""
