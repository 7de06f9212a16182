"""Rule-based answer scoring in the manner of MMLongBench-Doc, for free-form answers.

MMLongBench-Doc first has an LLM extract a short answer, then compares it with the gold by answer
format: integers exactly, floats within 1% (a percentage may be written as 18.29, 18.29% or
0.1829), strings by normalised Levenshtein similarity (exactly for URLs, e-mails, dates...),
lists item by item, and "Not answerable" as a string. Our answers are sentences with citation
markers and no extraction step, so each rule looks *inside* the answer: a number anywhere in it
may match, a gold string may be contained in it, each gold list item is searched separately,
and an unanswerable question is right exactly when the answer is a refusal.
"""

from __future__ import annotations

import ast
import math
import re
import unicodedata
from dataclasses import dataclass

NOT_ANSWERABLE = "Not answerable"
FUZZY_CORRECT = 0.8  # string similarity that still counts as the same answer (a typo, a space)
ANLS_FLOOR = 0.5  # MMLongBench's threshold: less similar strings score nothing
REL_TOL = 0.01  # MMLongBench's relative tolerance for floats
MAX_NUMBERS = 8  # of an answer's numbers, the first this many may match the gold

_CITATION = re.compile(r"\[\s*\d+(?:\s*[,;\-–]\s*\d+)*\s*\]")
_NUMBER = re.compile(
    r"(?<![\w.])(?P<sign>[-−](?=[$€£¥₹]?\d))?[$€£¥₹]?\s?"  # "13,117 - 18,214": no sign
    r"(?P<num>\d{1,2}(?:,\d{2})+,\d{3}(?!\d)(?:\.\d+)?"  # Indian grouping: "3,02,16,492.00"
    r"|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:\s*(?P<unit>%|per\s?cent\b|thousand\b|million\b|billion\b|trillion\b|bn\b|[kmb]\b"
    r"|lakhs?\b|lacs?\b|crores?\b))?",
    re.IGNORECASE,
)
_SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9,
           "b": 1e9, "trillion": 1e12, "lakh": 1e5, "lakhs": 1e5, "lac": 1e5, "lacs": 1e5,
           "crore": 1e7, "crores": 1e7}  # fmt: skip
_ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
         "nineteen", "twenty")  # fmt: skip
_TENS = {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90, "hundred": 100}  # fmt: skip
_NUMBER_WORDS = {w: float(i) for i, w in enumerate(_ONES)} | {w: float(v) for w, v in _TENS.items()}
_WORD = re.compile(r"\b(?:" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)
_DIGIT_LETTER = re.compile(r"(?<=\d)(?=[^\W\d_])|(?<=[^\W\d_])(?=\d)")
_ARTICLES = frozenset({"a", "an", "the"})
_REFUSALS = (
    "do not contain", "does not contain", "don't contain", "doesn't contain", "not answerable",
    "cannot be answered", "can't be answered", "cannot be determined", "no information",
    "not mentioned", "not provided", "not specified", "not stated", "unable to find",
    "could not find", "cannot find", "can't find", "not available in", "no mention",
)  # fmt: skip
_EXACT_ANYWHERE = re.compile(r"https?://|www\.|\.py$|\.ipynb$|^page\b|[\w.%+-]+@[\w.-]+\.\w{2,}")
_EXACT_WHOLE = re.compile(
    r"\d+([-\s]\d+)?"  # telephone-like digit groups
    r"|\d{4}[-\s]\d{2}([-\s]\d{2})?"  # YYYY-MM(-DD)
    r"|.*\b[ap]\.?m\.?|\d{1,2}:\d{2}.*"  # times
)


@dataclass(frozen=True, slots=True)
class Score:
    correct: bool
    score: float  # partial credit in 0..1: list overlap, string similarity; else 0 or 1


@dataclass(frozen=True, slots=True)
class Number:
    value: float
    decimals: int  # as written: "12.50" has 2, so a rounded answer can be compared at its precision
    scaled: float | None = None  # "3.2 million" -> 3.2e6 as well as 3.2


def score_answer(
    gold: str, fmt: str, text: str, refused: bool, count: int | None = None
) -> Score:
    """One answer against its gold; a refusal is right only for an unanswerable question. A
    count answer (`count`, the count route's number) is scored on its count for an integer:
    its headline also says how many passages and pages were read ("Found 1 matching item …,
    reading all 48 passages (15 pages)" is no answer of 15)."""
    refusal = refused or says_not_found(text)
    if is_unanswerable(gold, fmt):
        return _binary(refusal)
    if refusal:
        return Score(False, 0.0)
    text = strip_citations(text)
    if fmt == "Int":
        return _binary(int_matches(gold, text if count is None else str(count)))
    if fmt == "Float":
        return _binary(float_matches(gold, text))
    if fmt == "List":
        return score_list(gold, text)
    return score_str(gold, text)


def is_unanswerable(gold: str, fmt: str) -> bool:
    return fmt == "None" or gold.strip().lower() == NOT_ANSWERABLE.lower()


def _binary(ok: bool) -> Score:
    return Score(ok, float(ok))


def strip_citations(text: str) -> str:
    return _CITATION.sub(" ", text)


def says_not_found(text: str) -> bool:
    """The answer's first sentence says the documents lack the answer (a model's own refusal,
    worded its way rather than with the prompt's fixed sentence)."""
    flat = " ".join(text.lower().replace("’", "'").split())
    first = re.split(r"(?<=[.!?])\s|\n", flat, maxsplit=1)[0] if flat else ""
    return any(phrase in first for phrase in _REFUSALS)


# ---- numbers -----------------------------------------------------------------------------------
def numbers(text: str) -> list[Number]:
    """Every number written in `text` in order, digits or a small number word, with its scale."""
    found = [(m.start(), _number(m)) for m in _NUMBER.finditer(text)]
    found += [(m.start(), Number(_NUMBER_WORDS[m[0].lower()], 0)) for m in _WORD.finditer(text)]
    return [n for _, n in sorted(found, key=lambda pair: pair[0])]


def answer_numbers(text: str) -> list[Number]:
    """The answer's first few numbers: one that enumerates everything ("1. [1] 2. [2] ...")
    is not an answer, and would otherwise match almost any gold."""
    return numbers(text)[:MAX_NUMBERS]


def _number(match: re.Match[str]) -> Number:
    digits = match["num"].replace(",", "")
    value = float(digits) * (-1.0 if match["sign"] else 1.0)
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    scale = _SCALES.get((match["unit"] or "").lower())
    return Number(value, decimals, value * scale if scale else None)


def _values(number: Number) -> tuple[float, ...]:
    return (number.value,) if number.scaled is None else (number.value, number.scaled)


def _gold_number(gold: str) -> Number | None:
    found = numbers(gold)
    return found[0] if found else None


def int_matches(gold: str, text: str) -> bool:
    """Exact, as MMLongBench scores integers; "1,234", "1.2 thousand" and "three" are numbers."""
    target = _gold_number(gold)
    if target is None:
        return False
    wanted = set(_values(target))
    return any(v in wanted for n in answer_numbers(text) for v in _values(n))


def float_matches(gold: str, text: str) -> bool:
    """Within 1% or equal at the precision written, with the gold also read as a percentage
    (18.29% matches 18.29, 0.1829 and 1829, as MMLongBench allows)."""
    target = _gold_number(gold)
    if target is None:
        return False
    return any(_close(target, n) for n in answer_numbers(text))


def _close(gold: Number, pred: Number) -> bool:
    precision = max(min(gold.decimals, pred.decimals), 2)
    for g in _values(gold):
        for candidate in (g, g / 100, g * 100):
            for p in _values(pred):
                if math.isclose(candidate, p, rel_tol=REL_TOL):
                    return True
                if round(candidate, precision) == round(p, precision):
                    return True
    return False


# ---- strings -----------------------------------------------------------------------------------
_YEAR_RANGE = re.compile(r"\b(19|20)(\d\d)\s*[-\u2013/]\s*(\d\d)\b(?![-\u2013/.,:]?\d)")


def full_years(text: str) -> str:
    """A year range written short ("2015-16", a fiscal year's usual form) as "2015-2016"."""
    return _YEAR_RANGE.sub(_full_range, text)


def _full_range(m: re.Match[str]) -> str:
    century, start, end = m.groups()
    return f"{century}{start}-{century}{end}" if int(end) > int(start) else m.group(0)


def normalise(text: str) -> str:
    """Lower case, punctuation and symbols as spaces, digits apart from letters, no articles;
    short year ranges written in full."""
    text = unicodedata.normalize("NFKC", full_years(text)).lower()
    text = "".join(" " if unicodedata.category(c)[0] in "PS" else c for c in text)
    text = _DIGIT_LETTER.sub(" ", text)  # "10:08AM" and "10:08 am", "3cm" and "3 cm" agree
    return " ".join(w for w in text.split() if w not in _ARTICLES)


def levenshtein(a: str, b: str) -> int:
    if len(a) < len(b):
        a, b = b, a
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, start=1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def similarity(a: str, b: str) -> float:
    """1 - normalised edit distance (the ANLS similarity before its threshold)."""
    longest = max(len(a), len(b))
    return 1.0 if longest == 0 else 1.0 - levenshtein(a, b) / longest


def best_window(gold: str, answer: str) -> float:
    """Best similarity of the gold to a run of answer words about as long as it."""
    words, size = answer.split(), len(gold.split())
    spans = {max(size + d, 1) for d in (-1, 0, 1)}
    runs = [" ".join(words[i : i + w]) for w in spans for i in range(max(len(words) - w + 1, 1))]
    return max((similarity(gold, r) for r in runs), default=0.0)


def token_recall(gold: str, answer: str) -> float:
    """Share of the gold's words found in the answer: a long gold phrase said in other order."""
    wanted = set(gold.split())
    return len(wanted & set(answer.split())) / len(wanted) if wanted else 0.0


def needs_exact(gold: str) -> bool:
    """URLs, e-mails, file names, phone numbers, dates and times: near is not right."""
    flat = gold.strip().lower()
    return bool(_EXACT_ANYWHERE.search(flat) or _EXACT_WHOLE.fullmatch(flat))


def contains(gold: str, answer: str) -> bool:
    """`gold` occurs in `answer` as whole words (both already normalised)."""
    return bool(gold) and f" {gold} " in f" {answer} "


def score_str(gold: str, text: str) -> Score:
    """Contained: right. Else right when nearly equal to a run of the answer's words, or when a
    long gold's words are nearly all there; partial credit like ANLS (nothing below 0.5)."""
    g, answer = normalise(gold), normalise(text)
    if contains(g, answer):
        return Score(True, 1.0)
    if needs_exact(gold) or not g:
        return Score(False, 0.0)
    recall = token_recall(g, answer) if len(g.split()) >= 4 else 0.0
    best = max(best_window(g, answer), recall)
    return Score(best >= FUZZY_CORRECT, best if best > ANLS_FLOOR else 0.0)


# ---- lists -------------------------------------------------------------------------------------
def gold_items(gold: str) -> list[str]:
    """The gold list, written like a Python literal ("['a', 'b']"); a bare string is one item."""
    try:
        value = ast.literal_eval(gold.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return [gold]
    items = value if isinstance(value, list | tuple | set) else [value]
    return [str(v).strip() for v in items if str(v).strip()]


def item_found(item: str, text: str) -> bool:
    if re.fullmatch(r"[-−]?[$€£¥]?\s?[\d.,]+\s*%?", item):
        return float_matches(item, text)
    return score_str(item, text).correct


def score_list(gold: str, text: str) -> Score:
    """Each gold item looked for in the answer: right when all are there, credit per item."""
    items = gold_items(gold)
    found = sum(item_found(item, text) for item in items)
    overlap = found / len(items) if items else 0.0
    return Score(bool(items) and found == len(items), round(overlap, 4))
