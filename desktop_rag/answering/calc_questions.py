"""What a question asks of arithmetic: whether it needs a calculation, of which shape, and how
to round its result.

Rules, no model: they run before the answer prompt is built, and a wrong "yes" costs little (the
prompt then asks for a "Calculation:" line *when the answer needs arithmetic*, and a line the
model writes anyway is checked like any other). A wrong "no" leaves a small model to add in its
head, so the rules lean to "yes" for the words of change, ratio, share, average, sum and
difference, and say "no" for questions that read a value ("What was revenue in 2015?"), a
definition ("What does EBITDA mean?"), a per-share figure or a qualitative change ("What changed
in the policy?").
"""

from __future__ import annotations

import re

# Words of a rise or a fall ("increased", "growth", "fell", "declining"); "change" is separate:
# as a noun it is a quantity ("the change in margin"), as a verb often not ("what changed in").
_MOVE = (
    r"(?:increas\w*|decreas\w*|grow\w*|grew|ris(?:e|es|en|ing)|rose|fall\w*|fell|drop\w*"
    r"|declin\w*|jump\w*|shr[ai]nk\w*|chang\w*)"
)
_YEAR = r"(?:fiscal |fy ?)?(?:19|20)[0-9]{2}\b"
_MOVE_NOT_CHANGE = _MOVE.replace(r"|chang\w*", "")
_RULES = [
    rf"\b(?:how much|what amount)\b.*\b{_MOVE}",  # "how much did revenue increase"
    r"\bby (?:how (?:much|many)|what (?:percent(?:age)?|amount|factor|margin))\b",
    rf"\b{_MOVE_NOT_CHANGE}\s+(?:in|of|from|between|by|since|over)\b",  # "increase in", "grew by"
    r"\bchanges? (?:in|of|from|between)\b|\bchanged? (?:by|from)\b",
    rf"(?:\b(?:percent(?:age)?|net|relative|absolute|annual|yearly|quarterly|overall)|%)\s*{_MOVE}",
    rf"\bhow (?:did|has|have|does|do|will|would)\b.{{0,80}}\b{_MOVE}",  # "how did sales change"
    r"\bgrowth\b|\byear[- ]over[- ]year\b|\byoy\b|\by/y\b|\bcagr\b|\bcompound(?:ed)? annual\b",
    r"\bdifferences?\b|\bgaps? (?:between|in|of)\b",
    r"\bhow (?:much|many) (?:more|less|fewer|higher|lower|bigger|smaller|larger|greater)\b",
    r"\bratios?\b|\bproportion\b|\bfraction of\b|\bshare of\b|\brelative to\b",
    r"\b(?:what|which) (?:fraction|portion|part|share)\b",
    r"\bpercent(?:age)? of\b|\bwhat percent(?:age)?\b|%\s*of\b|\bas a percent(?:age)?\b",
    r"\bpercentage points?\b|\bin percent\b",
    r"\baverages?\b|\b(?:the|a|an|arithmetic) mean\b|\bmean (?:of|value)\b",
    r"\btotals?\b|\bsum\b|\bcombined\b|\baltogether\b|\btogether\b|\badd(?:ed|ing|s)? up\b",
    r"\badd(?:ing)?\b[^?]{1,80}\b(?:and|plus)\b",  # "Adding 2017 and 2018, how much …"
    r"\bcompar(?:e|ed|es|ing|ison)\b",
    rf"\b(?:from|between) {_YEAR} (?:to|and|through|until) {_YEAR}",
    r"\bmargins?\b",
    r"\btimes (?:as|more|larger|higher|bigger|greater|smaller)\b",  # not "how many times is"
    r"\b(?:calculate|compute|subtract|minus|plus|divided by|multiplied by|multiply)\b",
    r"\bper (?:[a-z]+ )?(?:capita|head|employee|member|subscriber|customer|user|unit)\w*",
]
_NEEDS = re.compile("|".join(f"(?:{rule})" for rule in _RULES), re.IGNORECASE)

_RISE_OR_FALL = _MOVE.replace(r"\w*", "")  # the stems, for the loose shape rules below
_PERCENT_WORD = r"(?:percent|per cent|%)"
# The formula's shape, named in the prompt: a small model told "a [n] - b [n]" for a share
# computes a change; the first rule that matches the question wins.
_SHAPES = [
    (rf"{_PERCENT_WORD}.{{0,40}}{_RISE_OR_FALL}|{_RISE_OR_FALL}\w*.{{0,40}}{_PERCENT_WORD}"
     r"|\bgrowth rate|\brate of (?:growth|change)|\bcagr\b|\byear[- ]over[- ]year|\byoy\b",
     "(new [n] - old [n]) / old [n] × 100"),
    (r"\bshare\b|\bproportion|\bfraction|\bportion|\bpercent(?:age)? of|%\s*of|\bwhat percent",
     "part [n] / total [n] × 100"),
    (r"\bmargin", "profit [n] / revenue [n] × 100"),
    (r"\baverage|\bmean\b", "(a [n] + b [n] + c [n]) / 3"),
    (r"\bratio|\btimes\b|\bper\b|\bdivided", "a [n] / b [n]"),
    (rf"{_RISE_OR_FALL}|\bdifferen|\bhow (?:much|many) (?:more|less|fewer|higher|lower)|\bcompar"
     rf"|\b(?:from|between) {_YEAR} (?:to|and|through|until) {_YEAR}|\bminus|\bsubtract",
     "new [n] - old [n]"),
]  # fmt: skip
SUM_SHAPE = "a [n] + b [n]"

_DIGIT_WORDS = {"no": 0, "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4}
_PLACES = re.compile(
    r"\b(?P<n>[0-9]|no|zero|one|two|three|four)\s+decimal(?:\s+(?:places?|points?|digits?)|s)?\b",
    re.IGNORECASE,
)
_NEAREST = {
    r"\b(?:nearest|to an?|to the|as an?) (?:whole number|integer|whole percent|unit|dollar)": 0,
    r"\bnearest tenth": 1,
    r"\bnearest (?:hundredth|cent)": 2,
    r"\bnearest thousandth": 3,
}
_PERCENT = re.compile(r"\bpercent|%|\bper cent\b", re.IGNORECASE)


def needs_calculation(question: str) -> bool:
    """Whether answering `question` takes arithmetic over the sources' numbers (a change,
    ratio, share, average, sum or difference), so the prompt asks for a calculation line."""
    return _NEEDS.search(question) is not None


def calculation_shape(question: str) -> str | None:
    """The formula's form to show the model ("part [n] / total [n] × 100" for a share), or
    None when the question needs no calculation; a sum when no other shape fits."""
    if not needs_calculation(question):
        return None
    for pattern, shape in _SHAPES:
        if re.search(pattern, question, re.IGNORECASE):
            return shape
    return SUM_SHAPE


def requested_decimals(question: str) -> int | None:
    """The decimal places the question asks for ("to two decimal places", "to the nearest
    whole number", "nearest tenth"), or None when it names none."""
    if (match := _PLACES.search(question)) is not None:
        n = match.group("n").lower()
        return int(n) if n.isdigit() else _DIGIT_WORDS[n]
    for pattern, places in _NEAREST.items():
        if re.search(pattern, question, re.IGNORECASE):
            return places
    return None


def asks_percent(question: str) -> bool:
    """Whether the question wants a percentage ("by what percentage", "percent change")."""
    return _PERCENT.search(question) is not None
