"""The local code tools: search, read, directory listing and file finding, defined once."""

from __future__ import annotations

from octo.contract import ToolCategory, ToolSpec, lazy
from octo.local.listing_models import (
    FindFilesQuery,
    FindFilesResult,
    ViewStructureQuery,
    ViewStructureResult,
)
from octo.local.models import (
    LocalGetFileContentQuery,
    LocalGetFileContentResult,
    LocalSearchCodeQuery,
    LocalSearchCodeResult,
)

_SAFETY = (
    " Only under the allowed roots (symlinks resolved); dot-files need hidden: true and"
    " credential files (.env, keys) includeSensitive: true; secrets in returned text are"
    " redacted."
)
TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="localSearchCode",
        title="Search local code",
        category=ToolCategory.LOCAL,
        description=(
            "Search file contents under a local directory with ripgrep (regex or fixedString,"
            " smartCase), filtered by type and include/exclude globs, respecting .gitignore."
            " Files come in path order, filesPerPage per page (filePageNumber), each with its"
            " match count and first matchesPerPage matching lines plus contextLines around"
            " them; filesOnly lists files only. Modes: discovery (filesOnly), paginated,"
            " detailed (contextLines=3). Paths are relative to the returned root; stats count"
            " every matching file, whichever page is asked for." + _SAFETY
        ),
        query_model=LocalSearchCodeQuery,
        result_model=LocalSearchCodeResult,
        handler=lazy("octo.local.search:search_code"),
        max_queries=5,
        example={"pattern": "def load_config", "path": "src", "type": "py"},
    ),
    ToolSpec(
        name="localGetFileContent",
        title="Read a local file",
        category=ToolCategory.LOCAL,
        description=(
            "Read a local text file: by default from its start up to the token budget, cut"
            " at a line boundary, with the exact parameters to continue; or one of"
            " startLine+endLine, matchString (matching lines with matchStringContextLines"
            " around them), charOffset+charLength pages, or fullContent (up to 300 KB)."
            " Binary files are refused (INVALID_QUERY); files above OCTO_RG_MAX_FILESIZE"
            " are FILE_TOO_LARGE." + _SAFETY
        ),
        query_model=LocalGetFileContentQuery,
        result_model=LocalGetFileContentResult,
        handler=lazy("octo.local.read:get_file_content"),
        max_queries=5,
        example={"path": "src/app.py", "matchString": "def load_config"},
    ),
]

_WALK_RULES = (
    " .gitignore rules are respected and hidden entries skipped unless noIgnore / hidden;"
    " symlinks are listed, never followed. Sensitive files (.env, keys) are listed with"
    " sensitive: true; reading them is gated by localGetFileContent."
)
TOOLS += [
    ToolSpec(
        name="localViewStructure",
        title="View local directory structure",
        category=ToolCategory.LOCAL,
        description=(
            "List a local directory: entries (paths relative to it) with type and, with"
            " details, size, modified time and permissions; depth 1-5 or recursive; sorted by"
            " time (newest first), size, name or extension; filtered by files/directories,"
            " extensions or a name pattern; a summary of totals; 20 entries per page."
            " Directories show when they hold a visible file." + _WALK_RULES
        ),
        query_model=ViewStructureQuery,
        result_model=ViewStructureResult,
        handler=lazy("octo.local.view_structure:view_structure"),
        max_queries=5,
        example={"path": "src", "depth": 2, "sortBy": "name", "entriesPerPage": 20},
    ),
    ToolSpec(
        name="localFindFiles",
        title="Find local files",
        category=ToolCategory.LOCAL,
        description=(
            "Find files, directories or symlinks under a local directory by name globs,"
            " type, depth, modification time (modifiedWithin / modifiedBefore: 30m, 2h, 7d,"
            " 1w), size (sizeGreater / sizeLess: 500k, 10M, 1G), octal permissions or"
            " access, skipping excludeDir; most recently modified first, 20 per page, at"
            " most limit results." + _WALK_RULES
        ),
        query_model=FindFilesQuery,
        result_model=FindFilesResult,
        handler=lazy("octo.local.find_files:find_files"),
        max_queries=5,
        example={"path": ".", "name": "*.py", "type": "f", "modifiedWithin": "7d"},
    ),
]
