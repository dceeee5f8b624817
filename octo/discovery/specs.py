"""The gateway's own tools, defined once; their words are in tools.toml beside this file."""

from __future__ import annotations

from octo.contract import ToolCategory
from octo.contract.family import Binding
from octo.contract.family import family_tools
from octo.discovery.models import FirstTimeUserGuideResult
from octo.discovery.models import GetCachedContentQuery
from octo.discovery.models import GetCachedContentResult
from octo.discovery.models import NoParameters
from octo.discovery.models import ToolCategoriesResult

TOOLS = family_tools(
    __package__,
    ToolCategory.DISCOVERY,
    {
        "getCachedContent": Binding(
            GetCachedContentQuery,
            GetCachedContentResult,
            "octo.discovery.handle_pages:get_cached_content",
            5,
        ),
        "getToolCategories": Binding(
            NoParameters, ToolCategoriesResult, "octo.discovery.guide:tool_categories", 1
        ),
        "firstTimeUserGuide": Binding(
            NoParameters, FirstTimeUserGuideResult, "octo.discovery.guide:first_time_user_guide", 1
        ),
    },
)
