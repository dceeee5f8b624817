"""localViewStructure and localFindFiles: rg --files walks, filters, sorts and their hints."""
