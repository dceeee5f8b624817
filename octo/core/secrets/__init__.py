"""Secrets kept in: redaction of every text leaving octo, the secret detectors, sensitive files."""
