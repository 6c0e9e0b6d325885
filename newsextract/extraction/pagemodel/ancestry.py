"""What an element inherits from its ancestors (lies in a dialog, a footer, a form), read
once an element for a whole page: a block of a page of 20,000 blocks, 60 levels deep, then
costs one step, not 60. The walk up and its memo are compiled (the page model's walk)."""

from newsextract.extraction.pagemodel.compiled import AttributeJudge, Inherited

__all__ = ["AttributeJudge", "Inherited"]
