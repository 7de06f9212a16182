"""What a list or count question asks for, read from its words by rules: the thing counted
(the head: "network outages"), the words that pick a subset of it (the condition: "paid late",
"assigned to Maria Lopez"), exact identifiers ("INV-20417", "P-10") and, for "how many times is
X mentioned", the phrase whose occurrences are counted.

Words that only say where to look ("in the incident log", "that the log records") or that
every item would share ("are recorded", "listed") are dropped: they would make every item miss
or every line match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from desktop_rag.routes.canonical import canonical
from desktop_rag.text.words import GENERIC_HEADS, stems

_I = re.IGNORECASE
_IDENTIFIER = re.compile(r"\b[A-Z]{1,6}-?\d{2,}[A-Z0-9-]*\b|\b[A-Z]{1,4}-\d+\b")
_QUOTED = re.compile(r"[\"“”']([^\"“”']{2,80})[\"“”']")
_DOC_WORDS = (
    r"(?:document|documents|report|reports|notes|log|logs|register|registers|minutes|file|files|"
    r"pdfs?|paper|papers|library|book|manual|guide|guidebook|slides|deck|records|contracts?|"
    r"articles?|course|survey notes|sheet|sheets)"
)
_WHERE = re.compile(
    rf"\b(?:in|from|across|throughout|within|of) (?:the |these |this |those |my |our |all |"
    rf"every )?(?:[\w&-]+ ){{0,3}}?{_DOC_WORDS}\b|\baccording to (?:the |this )?(?:\w+ ){{0,3}}?"
    rf"{_DOC_WORDS}\b|\b(?:that|which) (?:the |these |this |those |my |our )(?:[\w&-]+ ){{0,2}}?"
    rf"{_DOC_WORDS} (?:\w+)(?: to)?\b|\b(?:in total|in all|altogether|overall|please|"
    r"in list format)\b",
    _I,
)
_FILLER = re.compile(
    r"\b(?:are|were|is|was|be|been|being|there|get|got|have been|has been|recorded|listed|"
    r"mentioned|reported|logged|noted|included|named|shown|given|found|contained|described|"
    r"presented|appear|appears|appeared|assigned|owned|raised|made|issued|filed|to|by|for|with|"
    r"the|a|an|of|all|every|each|any|that|which|who|whose|do|does|did|and|its|their|his|her|"
    r"(?-i:must|should|can|could|will|would|may|might|shall))\b",
    _I,
)
_MENTIONS = (
    re.compile(r"how (?:many times|often) (?:is|was|are|were|does|did|has|have)? ?"
               r"(?:the (?:word|name|term|"
               r"phrase) )?(.+?) (?:mentioned|cited|referenced|named|appear\w*|occur\w*|used|"
               r"come up|referred to)\b", _I),
    re.compile(r"\b(?:every|each|all) (?:mentions?|occurrences?|references?) (?:of|to) (.+)", _I),
    re.compile(r"\b(?:every|each) time (.+?) (?:is|was|are|were) (?:mentioned|named|cited)\b", _I),
)  # fmt: skip
_OBJECT = (
    ("count", re.compile(r"\bhow many (.+)", _I)),
    ("count", re.compile(r"(?:^|[,;:]\s*)(?:please )?count (?:the |all |every |each )?(.+)", _I)),
    ("list", re.compile(r"^(?:please |can you |could you )?(?:list|enumerate|name|itemi[sz]e|find|"
                        r"show(?: me)?|give me|collect|extract)(?: a list of)?(?: all| every| "
                        r"each)?(?: of)?(?: the)? (.+)", _I)),
    ("list", re.compile(r"\b(?:what|which|who) (?:are|were) (?:all )?(?:the )?(.+)", _I)),
    ("list", re.compile(r"\bwhich (?:of the )?(.+)", _I)),
    ("list", re.compile(r"\b(?:every|all|each) (?:of )?(?:the )?(.+)", _I)),
)  # fmt: skip
_BREAK = re.compile(
    r"\s(?=(?:are|were|is|was|did|do|does|have|has|had|that|which|who|whose|where|when|with|"
    r"without|from|by|in|on|at|for|of|to|about|during|since|before|after|between|under|over|"
    r"than|assigned|owned|paid|raised|made|issued|filed|sent|signed|submitted|involving|"
    r"concerning|regarding|related|mentioned|listed|recorded|reported|logged|received|due|"
    r"opened|closed|marked|flagged|attended|(?-i:must|should|can|could|will|would|may|might|shall))\b)",
    _I,
)

_ASIDE = re.compile(r"\s*\([^()]*\)$")
_AGAIN = re.compile(r"\bhow many\b", _I)  # "strengths and how many weaknesses": one thing each
_SENTENCE_END = re.compile(r"[?!]|(?<=[a-z]{2})\.(?=\s+[A-Z\"“])")  # not "P. Smith"
_AUXILIARY = re.compile(r"\b(?:are|were|is|was|be|been|being|have been|has been|got)\b", _I)
_TRAILING = re.compile(
    r"(?:\s+(?:are|were|is|was|been|there|recorded|listed|mentioned|reported|logged|noted|"
    r"included|shown|given|found|contained|described|presented|appear|appears|appeared))+\s*$",
    _I,
)


class Mode(StrEnum):
    COUNT = "count"  # how many items
    LIST = "list"  # which items
    MENTIONS = "mentions"  # how many times a phrase occurs


@dataclass(frozen=True, slots=True)
class Target:
    """What to look for. `head` and `condition` are stems (an item has every head stem; a
    matching item also has every condition stem); `soft` are head stems that items may leave
    unsaid ("items" of "action items"); `phrase` is what MENTIONS counts; `noun` the words as
    the question says them, for the answer's sentence and the judge."""

    question: str
    mode: Mode
    noun: str
    head: tuple[str, ...]
    condition: tuple[str, ...] = ()
    soft: frozenset[str] = frozenset()
    identifiers: tuple[str, ...] = ()
    phrase: str = ""
    head_noun: str = ""  # the head's words as asked ("action item" of "... assigned to Maria")
    names: tuple[str, ...] = ()  # stems of the condition's proper names ("Acme Ltd"), as asked

    @property
    def description(self) -> str:
        """The thing asked for, in words: the dense query and the judge's instruction."""
        return self.noun


def _clean(text: str) -> str:
    """The words of the thing and its condition: no place words, nothing after a comma, no
    closing parenthesis ("count the lines (integer)" says how to answer)."""
    text = _ASIDE.sub("", text.strip().rstrip("?.!"))
    text = _WHERE.sub(" ", text.strip().rstrip("?.!"))
    return " ".join(text.split(",")[0].split())


def _mentions(question: str) -> Target | None:
    for pattern in _MENTIONS:
        found = pattern.search(question)
        if found:
            phrase = _clean(_SENTENCE_END.split(found.group(1), maxsplit=1)[0]).strip("\"“”' ")
            quoted = _QUOTED.search(phrase)
            phrase = quoted.group(1) if quoted else phrase
            ids = tuple(_IDENTIFIER.findall(phrase))
            return Target(question, Mode.MENTIONS, phrase, stems(phrase), identifiers=ids,
                          phrase=phrase)  # fmt: skip
    return None


def _object(question: str) -> tuple[Mode, str]:
    """The words after the question's list or count verb, up to the end of their sentence: a
    second sentence is an instruction ("List the page numbers in ascending order"), not part
    of the thing counted."""
    for mode, pattern in _OBJECT:
        found = pattern.search(question)
        if found:
            return Mode(mode), _SENTENCE_END.split(found.group(1), maxsplit=1)[0]
    return Mode.LIST, question


def parse(question: str) -> Target:
    """The target of a list or count question (rules only; the same words, the same target)."""
    text = canonical(question)
    mentioned = _mentions(text)
    if mentioned is not None:
        return mentioned
    mode, rest = _object(text)
    rest = _clean(_AGAIN.sub(" ", rest))
    head_text = _BREAK.split(rest, maxsplit=1)[0]
    condition_text = _FILLER.sub(" ", rest[len(head_text) :])
    head = stems(head_text)
    soft = frozenset(h for h in head if h in GENERIC_HEADS and len(head) > 1)
    noun = _AUXILIARY.sub(" ", _TRAILING.sub("", rest))
    noun = " ".join(noun.split()) or " ".join(rest.split())
    names = stems(" ".join(w for w in condition_text.split() if w[:1].isupper()))
    return Target(text, mode, noun, head, stems(condition_text), soft,
                  tuple(_IDENTIFIER.findall(text)), head_noun=head_text,
                  names=names)  # fmt: skip
