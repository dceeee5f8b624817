"""The local code family: ripgrep search, file reads, directory listing and file finding."""
