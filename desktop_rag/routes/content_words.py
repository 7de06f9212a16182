"""Candidates by the question's content words when no item has every word of what it asks for.

"How many incidents in the log involved a forklift?": no line says "involved" (the condition's
verb is the question's, not the log's), so no line has every stem of the head, and the route
used to fall back on similarity alone, a top-k sample. Here every item that shares the
question's words *that the text states at all* is a candidate for the judge, whatever the verb:
the stems of the question found in no item in scope are set aside (they cannot tell items
apart), and of the rest, the items holding all of them are taken; when none holds all, the
most widespread stem is set aside in turn ("incident" is in every header of an incident log;
"forklift" only on the lines that name one) until some item holds all that are left. No list
of verbs or nouns: what is set aside is decided by the scope's own text.
"""

from __future__ import annotations

from collections.abc import Sequence

from desktop_rag.routes.target import Target
from desktop_rag.routes.units import ItemUnit


def shared_stems(sets: Sequence[frozenset[str]], target: Target) -> tuple[str, ...]:
    """The question's stems that some item states, rarest first; set aside from the most
    widespread until some item holds every one left. () when the text states none."""
    wanted = dict.fromkeys(s for s in (*target.head, *target.condition) if s not in target.soft)
    spread = {s: sum(s in st for st in sets) for s in wanted}
    kept = sorted((s for s in wanted if spread[s]), key=lambda s: (spread[s], s))
    while kept and not any(set(kept) <= st for st in sets):
        kept.pop()  # the most widespread one
    return tuple(kept)


def content_word_candidates(
    units: Sequence[ItemUnit], sets: Sequence[frozenset[str]], target: Target
) -> tuple[list[int], tuple[str, ...]]:
    """The items (indices, reading order) holding every stem `shared_stems` keeps, and those
    stems; none when the text states none of the question's words."""
    kept = shared_stems(sets, target)
    if not kept:
        return [], kept
    return [i for i, st in enumerate(sets) if set(kept) <= st], kept
