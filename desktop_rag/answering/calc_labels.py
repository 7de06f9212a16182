"""Does each input of a calculation say what the question asks? A number found in a source is
not enough: "44,738 + 30,024" for Netflix's total streaming revenue adds two membership counts
that the 10-K prints, and a sum of the right rows of the wrong year is as wrong.

Each input is looked up where its source prints it: a table row ("Revenues — 2015: $ 4,180,339
| 2014: …") gives its row label and column label; a sentence gives the words before the
number in it. Three things are checked, all from the question's own words, no list of terms:

- the label: an amount added or subtracted is a quantity of the kind asked ("total streaming
  revenue" is a sum of revenues), so each such input's label shares a content word with the
  question; a ratio's inputs are other quantities (return on equity divides net income by
  equity), so at least one of them must share a word, or a word of the statement lines the
  ratio is defined by (`defined_by`, from the ratio worksheet's textbook definitions). Only
  the question's words that the given passages use count: a question that says "it" or words
  no source uses gives nothing to hold a label against, and is not judged on its words;
- the period: when the question names years, an input printed under a year column is of a
  year named, or of the year before one named when the formula subtracts or divides (a
  change, an average balance); a plain sum takes the years named only.

- the column: a word the question asks that a column of an input's row (or of a row with the
  same label elsewhere in the passages) says, and no input's row or column says, means the
  input was read from another column ("total streaming revenue" from the "Consolidated" column
  beside "Domestic Streaming" and "International Streaming").

An input that fails is named with its label; the calculation is still computed and shown, with
that warning (computed.CalculationProblem.LABEL_MISMATCH).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from desktop_rag.domain import CalculationProblem, CheckedCalculation, CheckedInput, Passage
from desktop_rag.text.numbers import NUMBER_PATTERN
from desktop_rag.text.words import STOPWORDS, stem_words, words

_NUMBER = re.compile(NUMBER_PATTERN)
_YEAR = re.compile(r"(?<![0-9])(?:FY ?|fiscal (?:year )?)?((?:19|20)[0-9]{2})(?![0-9])", re.I)
_SHORT_FY = re.compile(r"\bFY ?([0-9]{2})\b", re.I)
_ROW = " — "
_SENTENCE_END = re.compile(r"(?<=[.;!?])\s+|\n")
# Words any figure's label may carry whatever it measures: they tell no quantity from another.
_GENERIC = frozenset({"total", "net", "amount", "value", "number", "year", "fiscal", "fy",
                      "end", "period", "ended", "consolidated", "in", "thousands", "millions",
                      "billions", "thousand", "million", "billion", "usd", "dollars", "dollar",
                      "percent"})  # fmt: skip
_CONTEXT_WORDS = 12  # words before a number in a sentence that label it


def content_words(text: str) -> list[str]:
    """The words that can name a quantity: no stopwords, digits or generic words."""
    return [w for w in words(text) if w not in STOPWORDS and w not in _GENERIC and w.isalpha()]


def content_stems(text: str) -> frozenset[str]:
    """The stems of `content_words`."""
    return frozenset(stem_words(content_words(text)))


def years(text: str) -> frozenset[int]:
    """The years a text names ("2015", "FY2021", "fiscal 2019", "FY21")."""
    found = {int(m.group(1)) for m in _YEAR.finditer(text)}
    found |= {2000 + int(m.group(1)) for m in _SHORT_FY.finditer(text)}
    return frozenset(found)


@dataclass(frozen=True, slots=True)
class Printed:
    """One place a source prints a number: the label of its row (or the words before it in its
    sentence), its column label ("" outside a table) and the labels of the other rows of its
    passage (() outside a table)."""

    label: str
    column: str
    siblings: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()  # the other cells' column labels in its row


def _value(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None


def printed_at(value: float, scale: float, passage_text: str) -> list[Printed]:
    """Where `passage_text` prints `value` (as written, or in the passage's unit)."""
    wanted = {Decimal(str(value)).normalize()}
    if scale != 1:
        wanted.add((Decimal(str(value)) / Decimal(str(scale))).normalize())
    out = []
    lines = passage_text.splitlines()
    for line in lines:
        for m in _NUMBER.finditer(line):
            v = _value(m.group(0))
            if v is not None and v.normalize() in wanted:
                out.append(_labelled(line, m.start(), lines))
    return out


def _labelled(line: str, at: int, lines: Sequence[str] = ()) -> Printed:
    """A table row's label, the column of the cell at `at` and the other rows' labels; else the
    sentence's words before the number."""
    if _ROW in line[:at]:
        label = line.partition(_ROW)[0]
        cell = line[:at].rsplit("|", 1)[-1].rsplit(_ROW, 1)[-1]
        column = cell.split(":", 1)[0] if ":" in cell else ""
        others = tuple(x.partition(_ROW)[0].strip() for x in lines if _ROW in x and x != line)
        columns = _cell_columns(line.partition(_ROW)[2])
        return Printed(label.strip(), column.strip(), others,
                       tuple(c for c in columns if c != column.strip()))  # fmt: skip
    sentence = _SENTENCE_END.split(line[:at])[-1]
    return Printed(" ".join(sentence.split()[-_CONTEXT_WORDS:]), "")


def _operators(expression: str) -> set[str]:
    ops = set(re.findall(r"(?<=[0-9)\s])[-−–+×*/÷](?=[\s(0-9$])", expression))
    return {"-" if o in "−–" else "/" if o in "÷" else "*" if o == "×" else o for o in ops}


def label_problems(
    question: str,
    expression: str,
    inputs: Sequence[CheckedInput],
    passages: Sequence[Passage],
    defined_by: Iterable[str] = (),
) -> list[str]:
    """What is wrong with the inputs' labels and periods for `question` ([] when nothing)."""
    used = content_stems("\n".join(p.text for p in passages))
    asked = content_stems(question) & used
    ops = _operators(expression)
    ratio = bool(ops & {"/", "*"})
    named = years(question)
    allowed = named | ({y - 1 for y in named} if ops & {"-", "/"} else set())
    wanted = asked | (content_stems(" ".join(defined_by)) & used) if ratio else asked
    placed = _placed(inputs, passages)
    problems: list[str] = []
    shares: list[bool] = []
    for item, places in placed:
        in_period = [p for p in places if _period_ok(p, allowed)]
        if named and not in_period:
            problems.append(f"{item.text} is under {places[0].column or 'another period'}; "
                            f"the question asks about {_years_text(named)}")  # fmt: skip
            continue
        labels = [content_stems(p.label) for p in (in_period or places)]
        # a label of no content word ("Total", "Other, net") says nothing either way
        words_ok = not wanted or any(not stems or stems & wanted for stems in labels)
        shares.append(words_ok)
        if not words_ok and not ratio:
            label = (in_period or places)[0].label
            problems.append(f"{item.text} is labelled \u201c{label}\u201d, not what the "
                            "question asks")  # fmt: skip
        elif not ratio and asked:
            others = frozenset().union(*(content_stems(p.label) for i, ps in placed
                                         if i is not item for p in ps))  # fmt: skip
            problems.extend(_closer_row(item.text, in_period or places, asked, others))
    if ratio and shares and not any(shares):
        problems.append("no input is labelled with what the question asks")
    if not ratio:
        problems.extend(_counted_twice(placed))
    if not ratio and not problems:
        problems.extend(_unread_columns(placed, asked, passages))
    return problems


def _counted_twice(placed: Sequence[tuple[CheckedInput, list[Printed]]]) -> list[str]:
    """A problem for a number added or subtracted twice where the sources print it with one
    meaning ("6.0 [4] + 6.0 [5]" for the Consumer and Health Care segments together, both
    read from "Sales in Health Care totaled $6.0 billion"). The same value under two labels
    or columns (one year's revenue equal to the next's) is no problem."""
    meanings: dict[Decimal, set[tuple[str, str]]] = {}
    taken: dict[Decimal, list[str]] = {}
    for item, places in placed:
        value = Decimal(str(item.value)).normalize()
        meanings.setdefault(value, set()).update((p.label, p.column) for p in places)
        taken.setdefault(value, []).append(item.text)
    return [f"{texts[0]} is taken twice; the sources print it once, as "
            f"\u201c{next(iter(meanings[v]))[0]}\u201d"
            for v, texts in taken.items() if len(texts) > 1 and len(meanings[v]) == 1]  # fmt: skip


def _unread_columns(
    placed: Sequence[tuple[CheckedInput, list[Printed]]], asked: frozenset[str],
    passages: Sequence[Passage],
) -> list[str]:
    """A problem for each input read where a column of its row, or of a row with the same label
    in the given passages, says a word the question asks and no input's row or column says:
    "total streaming revenue" read from "Revenues" in a "Consolidated" column, or in a year
    column of a summary table, beside a "Revenues" row with "Domestic Streaming" and
    "International Streaming" columns. Every place an input is printed must have such a column
    (else [])."""
    said = frozenset().union(*(content_stems(f"{p.label} {p.column}")
                               for _, places in placed for p in places))  # fmt: skip
    by_label = _columns_by_label(passages)
    problems = []
    for item, places in placed:
        better = [[c for c in dict.fromkeys((*p.columns, *by_label.get(content_stems(p.label), ())))
                   if content_stems(c) & asked - said] for p in places]  # fmt: skip
        if places and all(better):
            named = ", ".join(f"\u201c{c}\u201d" for c in better[0])
            problems.append(f"{item.text} is under \u201c{places[0].column or 'another column'}"
                            f"\u201d; the question asks for {named}")
    return problems


def _columns_by_label(passages: Sequence[Passage]) -> dict[frozenset[str], list[str]]:
    """The column labels of the table rows in `passages`, by their row label's content words."""
    out: dict[frozenset[str], list[str]] = {}
    for passage in passages:
        for line in passage.text.splitlines():
            label, row, cells = line.partition(_ROW)
            stems = content_stems(label)
            if row and stems:
                out.setdefault(stems, []).extend(_cell_columns(cells))
    return out


def _cell_columns(cells: str) -> list[str]:
    """The column labels of a row's cells ("2015: $ 4,180,339 | Consolidated: …")."""
    return [c.split(":", 1)[0].strip() for c in cells.split("|") if ":" in c]


def _placed(
    inputs: Sequence[CheckedInput], passages: Sequence[Passage]
) -> list[tuple[CheckedInput, list[Printed]]]:
    """Each input read from the sources with the places its sources print it."""
    by_n = {p.n: p for p in passages}
    out = []
    for item in inputs:
        if item.constant or item.from_calculation is not None or not item.found_in:
            continue
        places = [p for n in item.found_in if n in by_n
                  for p in printed_at(item.value, item.scale, by_n[n].text)]  # fmt: skip
        if places:
            out.append((item, places))
    return out


def _closer_row(
    text: str, places: Sequence[Printed], asked: frozenset[str], others: frozenset[str]
) -> list[str]:
    """A problem when every row printing an added input has, in its own table, a row that says
    more of what the question asks and nothing more that it does not ask ("net cash used in
    financing activities" where "net cash used in investing activities" is asked and printed
    beside it). The words a closer row adds must not all be words of the calculation's other
    inputs' labels: "Net income" plus "Other comprehensive income: Foreign currency
    translation" asks for both, whatever "Total other comprehensive income" says. [] when some
    place of the input has no closer row."""
    closer: list[tuple[str, str]] = []
    for place in places:
        said = content_stems(place.label)
        hit, extra = said & asked, said - asked
        better = next((o for o in place.siblings
                       if _closer(content_stems(o), hit, extra, asked, others)), None)  # fmt: skip
        if better is None:
            return []
        closer.append((place.label, better))
    label, better = closer[0]
    return [f"{text} is labelled \u201c{label}\u201d; the question asks for \u201c{better}\u201d"]


def _closer(row: frozenset[str], hit: frozenset[str], extra: frozenset[str],
            asked: frozenset[str], others: frozenset[str]) -> bool:
    """`row` says all the question words a label says and more, one of them no other input's
    label says, and no word the question does not say that the label does not say."""
    return (row & asked) > hit and bool((row & asked) - hit - others) and (row - asked) <= extra


def _period_ok(place: Printed, allowed: set[int] | frozenset[int]) -> bool:
    printed = years(place.column) or years(place.label)
    return not printed or bool(printed & allowed)


def _years_text(named: frozenset[int]) -> str:
    return ", ".join(str(y) for y in sorted(named))


def labels_checked(
    calc: CheckedCalculation, passages: Sequence[Passage], question: str
) -> CheckedCalculation:
    """A computed calculation whose inputs' labels or periods do not match the question keeps
    its result, with the warning label_mismatch (llm/calc_labels.py)."""
    if calc.result is None or not question:
        return calc
    from desktop_rag.answering.ratio_worksheet import asked_ratio, needed_lines

    ratio = asked_ratio(question)
    defined = [name for name, _ in needed_lines(ratio)] if ratio is not None else []
    problems = label_problems(question, calc.expression, calc.inputs, passages, defined)
    if not problems:
        return calc
    return dataclasses.replace(calc, problem=CalculationProblem.LABEL_MISMATCH,
                               message="; ".join(problems))
