"""The question router: rules over the question's words, no model, a few microseconds each.

Order matters: a comparison first ("summarise the differences between the 2019 and 2021
reports" compares), then lists and counts ("list every deadline"), then summaries, else a
lookup. "How many" alone is no count: "how many warehouses did Costco operate in 2021" asks for
a number a passage states, while "how many exhibits are mentioned in the document" asks to count
through it. A count is recognised by what says "through the whole scope" (mentioned, listed, in
the document, in total) and refused where the question points at one place (a page, a figure).
Each rule has a name, returned as the decision's reason, so that a wrong route can be traced.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from desktop_rag.domain.routed import RouteName
from desktop_rag.routes.canonical import canonical

_I = re.IGNORECASE
_DOC = (
    r"(?:document|documents|report|reports|paper|papers|article|notes|log|logs|register|"
    r"minutes|guidebook|guide|manual|slides?|deck|presentation|book|file|files|pdfs?|library|"
    r"course|brochure|handbook|contract|transcript|records?)"
)
_PLACE = re.compile(
    r"\b(?:on|in|at) (?:the )?(?:page|p\.|slide) ?\d+|\bpages? \d+ and|\b(?:on|in) the (?:first|"
    r"last|second|cover|front|title) (?:page|slide)|\b(?:in|on) (?:the )?(?:figure|fig\.?|table|"
    r"chart|image|photo|photograph|picture|diagram|flow ?chart|graph) ?\d*\b",
    _I,
)

_FUNCTION_S = r"(?:has|was|is|does|this|his|its|thus|yes|us|plus|less|across|perhaps|always)"
# a plural noun ("items", "addresses"; not "class", "status", nor a word like "has" or "this")
_PLURAL = rf"(?!{_FUNCTION_S}\b)\w*[^\Wsu]s"
_SET_VERB = (
    r"(?:were|are|have|had|did|do|does|got|received|need|must|remain|can|could|will|would|"
    r"should|\w{3,}ed)"
)  # the verb after a plural subject or before its own ("which items does X own")

# the word right after "which" and a plural noun, when it is no preposition, article or
# conjunction: its verb, regular or not ("which loans came back", "which comments say"); after
# longer noun phrases a verb ending in "s" looks like a plural ("which method integrates ...")
_ANY_VERB = (
    r"(?!(?:of|in|on|for|from|with|to|at|by|about|and|or|but|the|a|an|that|which|who|whose|per|"
    r"than|as|vs|versus|under|over|between|during|within|into|across|'s)\b)[a-z]+"
)

# (rule name, pattern) in order; the first that matches decides.
_COMPARE = (
    ("compare", r"^(?:please |can you |could you )?(?:compare|contrast)\b"),
    ("comparison", r"\b(?:comparison|contrast) (?:of|between)\b"),
    ("how-compare", r"\bhow (?:do|does|did) .{3,80} (?:compare|differ)\b"),
    ("differences", r"\b(?:differences|similarities)\b(?! in (?:percentage|number|value))"),
    ("versus", r"\b(?:vs\.?|versus)\b"),
    ("what-changed", r"\bwhat (?:changed|has changed|is different) between\b"),
    (
        "year-or-year",
        r"\b(?:which|what|is|was|did)\b.*\b(?:19|20)\d\d\b.{0,30}\bor (?:in )?(?:the )?"
        r"(?:19|20)\d\d\b",
    ),
)
_EXHAUSTIVE = (
    ("mentions", r"\b(?:every|each|all) (?:mentions?|occurrences?|references?) (?:of|to)\b"),
    ("every-time", r"\b(?:every|each) time\b"),
    ("how-many-times", r"\bhow (?:many times|often)\b(?! (?:more|higher|larger|bigger))"),
    (
        "list-all",
        r"^(?:please |can you |could you )?(?:list|enumerate|name|itemi[sz]e|find|show"
        r"(?: me)?|give me|collect|extract|count)\b.{0,20}\b(?:all|every|each)\b",
    ),
    ("enumerate", r"\benumerate\b|\bin (?:a )?list(?: format)?\b.*\ball\b"),
    ("list-the", r"^(?:please |can you |could you )?(?:list|itemi[sz]e)\b"),
    ("what-are-all", r"\b(?:what|which|who) (?:are|were) all\b"),
    ("all-the-that", r"\ball (?:of )?the \w+(?: \w+)? (?:that|which|who|where|mentioned|listed)\b"),
    (
        # a plural noun phrase after "which", then its verb, asks for a set, whatever clause
        # leads up to it ("At the company, which directors are ...?", "which action items
        # does Omar own?"); a participle may stand before the noun ("which reported bugs
        # make ...?")
        "which-plural",
        rf"(?:^|[,;:]\s*)(?:in \w+ )?which (?:of the )?(?:(?:[\w'-]+ ){{0,2}}{_PLURAL} "
        rf"{_SET_VERB}|(?:\w+ed )?{_PLURAL} {_ANY_VERB})\b",
    ),
    (
        "what-plural-listed",
        rf"(?:^|[,;:]\s*)(?:what|which) (?:[\w'-]+ ){{0,3}}?{_PLURAL} (?:are|were) "
        r"(?:\w+ )?(?:listed|mentioned|named|cited|given|included|shown|described|presented|"
        r"referenced|featured)\b",
    ),
    ("count-verb", r"(?:^|[,;:]\s*)(?:please )?count (?:the|all|every|each)\b"),
    ("list-them", r"\blist (?:them|each|every one)\b"),
)
_HOW_MANY = re.compile(r"\bhow many\b", _I)
_NOT_A_COUNT = re.compile(
    r"\bhow many (?:more|fewer|less|percent|percentage|times (?:more|higher|larger|bigger)|"
    r"millions?|billions?|thousands?|hundreds?|dollars|euros|years old|grams|square)\b|"
    r"\bhow much\b",
    _I,
)
_THROUGHOUT = (
    (
        "passive-listed",
        r"\bhow many\b.{0,80}\b(?:are|were|is|was|have been|has been|get|got) "
        r"(?:there |mentioned|listed|recorded|reported|logged|cited|named|described|introduced|"
        r"included|shown|presented|noted|given|discussed|referenced|contained|found|featured)",
    ),
    (
        "mentioned",
        r"\bhow many\b.{0,80}\b(?:mentioned|mentions?|listed|cited|appear(?:s|ed)?|"
        r"occur(?:s|red)?|featured|discussed|named)\b",
    ),
    (
        "in-the-document",
        rf"\bhow many\b.{{0,100}}\b(?:in|of|from|across|throughout|within) "
        rf"(?:the |this |these |those |my |our |all )?(?:\w+ ){{0,3}}{_DOC}\b",
    ),
    (
        "in-total",
        r"\bhow many\b.{0,100}\b(?:in total|in all|altogether|overall|combined|"
        r"the entire|the whole|are there)\b",
    ),
    (
        "document-has",
        rf"\bhow many\b.{{0,60}}\b(?:does|do|did) (?:the |this |these )?(?:\w+ )?"
        rf"{_DOC} (?:have|contain|include|mention|list|show|provide|introduce|give|name|cite|use|"
        rf"describe|discuss|present|reference|feature)\b",
    ),
    (
        "parts-of-document",
        r"\bhow many (?:pages|figures|tables|charts|chapters|sections|"
        r"appendices|references|footnotes|exhibits|images|photos|slides|items|entries|records|"
        r"incidents|invoices|action items|deadlines|meetings)\b",
    ),
)
_SUMMARY = (
    (
        "summarise",
        r"\bsummar(?:i[sz]e|i[sz]ing|y of (?:the|this|these|my)\b(?!.*\b(?:table|"
        r"figure)\b))",
    ),
    (
        "a-summary",
        r"\b(?:a|an|brief|short|quick|high-level|executive) (?:summary|overview|synopsis|"
        r"recap)\b",
    ),
    (
        "overview",
        r"^(?:please )?(?:give|provide|write|make)(?: me)? (?:a|an)\b.{0,30}\b(?:summary|"
        r"overview|synopsis|outline|recap|digest)\b",
    ),
    ("recap", r"^(?:please |can you |could you )?(?:recap|sum up|outline)\b"),
    ("tldr", r"\btl;? ?dr\b|\bgist\b|\bin a nutshell\b"),
    (
        "main-points",
        r"\b(?:main|key|most important|principal) (?:points|ideas|findings|takeaways|"
        r"themes|messages|arguments|contributions|conclusions)\b",
    ),
    ("about", rf"\bwhat (?:is|are) (?:the |this |these )?(?:\w+ )?{_DOC} (?:all )?about\b"),
    ("bullets", r"\bin (?:\w+ )?bullet points\b|\b\d+ bullet points\b"),
)


@dataclass(frozen=True, slots=True)
class RouteDecision:
    """The route for a question and the rule that chose it; `sure` is False where no rule
    matched and lookup is only the default."""

    route: RouteName
    rule: str
    sure: bool = True


def _compiled(rules: tuple[tuple[str, str], ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((name, re.compile(pattern, _I)) for name, pattern in rules)


_RULES = (
    (RouteName.COMPARE, _compiled(_COMPARE)),
    (RouteName.EXHAUSTIVE, _compiled(_EXHAUSTIVE)),
)
_COUNT_RULES = _compiled(_THROUGHOUT)
_SUMMARY_RULES = _compiled(_SUMMARY)


def _first(rules: tuple[tuple[str, re.Pattern[str]], ...], text: str) -> str | None:
    return next((name for name, pattern in rules if pattern.search(text)), None)


def _count_rule(text: str) -> str | None:
    """The rule that makes a "how many" question a count through the scope, if any."""
    if not _HOW_MANY.search(text) or _NOT_A_COUNT.search(text):
        return None
    if _PLACE.search(text):
        return "how-many-times" if "how many times" in text.lower() else None
    return _first(_COUNT_RULES, text)


def decide(question: str) -> RouteDecision:
    """The route of `question` by the rules above (on its canonical wording); lookup when none
    applies."""
    text = canonical(question)
    for route, rules in _RULES:
        rule = _first(rules, text)
        if rule is not None and not (route is RouteName.EXHAUSTIVE and _local_list(text, rule)):
            return RouteDecision(route, rule)
    counted = _count_rule(text)
    if counted is not None:
        return RouteDecision(RouteName.EXHAUSTIVE, f"how-many:{counted}")
    summary = _first(_SUMMARY_RULES, text)
    if summary is not None:
        return RouteDecision(RouteName.SUMMARY, summary)
    if _HOW_MANY.search(text):
        # one page or figure's number is read there; else the scope's text decides between a
        # number it states and a count through it (routes/count_evidence.py)
        rule = "how-many:one-place" if _PLACE.search(text) else "how-many:stated-number"
        return RouteDecision(RouteName.LOOKUP, rule, sure=False)
    return RouteDecision(RouteName.LOOKUP, "default", sure=False)


def _local_list(text: str, rule: str) -> bool:
    """A list of what one page or figure shows is a lookup of that place (not "every time")."""
    local = ("list-the", "which-plural", "enumerate", "count-verb", "list-them")
    return rule in local and bool(_PLACE.search(text))
