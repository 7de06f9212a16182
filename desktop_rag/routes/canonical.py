"""Questions reduced to one wording before the router and the count's target read them, where
English has several for the same request: "What is the number of water leaks logged?" and
"What is the total number of action items?" ask "how many", as "how often is X mentioned"
asks "how many times". Only forms that mean the same whatever follows are rewritten, so a
rule that reads the canonical form reads every wording of it."""

from __future__ import annotations

import re

_I = re.IGNORECASE
_FORMS = (
    (re.compile(r"\b(?:what|which) (?:is|was|are|were) the (?:total |overall )?number of\b", _I),
     "how many"),
    (re.compile(r"\bhow often\b", _I), "how many times"),
)  # fmt: skip


def canonical(question: str) -> str:
    """`question` with its wording of a count rewritten to "how many" (see above)."""
    text = " ".join(question.split())
    for pattern, form in _FORMS:
        text = pattern.sub(form, text)
    return text
