"""localGitHistory and localGitBlame: a checkout's history read by a locked-down git."""
