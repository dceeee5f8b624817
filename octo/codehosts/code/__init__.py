"""Code and files: code search, file content, repository trees and repository search."""
