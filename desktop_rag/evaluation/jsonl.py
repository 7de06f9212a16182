"""Reading an evaluation's JSON-lines file (questions, rewordings, labelled routes, counts):
one JSON object a line. A file that is missing, unreadable, not JSON on some line or without a
field the evaluation needs is named in the error with its line and the reason, instead of a
traceback from deep inside the loader."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop_rag.domain.errors import DesktopRagError


def read_jsonl(path: Path, what: str, required: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The rows of the file at `path` (blank lines skipped), each with the `required` fields;
    `what` names its rows in the plural ("count questions")."""
    hint = f"give a JSONL file of {what}: one JSON object a line"
    if not path.is_file():
        raise DesktopRagError(f"No file of {what} at {path}", hint)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DesktopRagError(f"Cannot read {path}: {exc}", hint) from None
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DesktopRagError(f"{path}, line {number}: not JSON ({exc.msg})", hint) from None
        if not isinstance(row, dict):
            raise DesktopRagError(f"{path}, line {number}: not a JSON object", hint)
        missing = [key for key in required if key not in row]
        if missing:
            raise DesktopRagError(f"{path}, line {number}: no {', '.join(missing)}", hint)
        rows.append(row)
    return rows
