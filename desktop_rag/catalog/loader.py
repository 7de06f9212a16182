"""Loads the packaged catalog and the user's own entries into one `Catalog`.

The packaged file is versioned (`schema`, `catalog_version`) so an older app refuses a catalog
written for a newer schema instead of misreading it. The user's file (`model_catalog.json` in the
config folder) has the same schema and adds entries; it cannot silently replace a packaged one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from desktop_rag.catalog.entries import CatalogEntry, CatalogError, Kind, parse_entry

SCHEMA = 1
USER_FILE = "model_catalog.json"
PACKAGED_NAME = "desktop_rag/resources/model_catalog.json"


@dataclass(frozen=True, slots=True)
class Catalog:
    version: str
    entries: tuple[CatalogEntry, ...]

    def get(self, entry_id: str) -> CatalogEntry:
        for entry in self.entries:
            if entry.id == entry_id:
                return entry
        raise CatalogError(
            f"No model {entry_id!r} in the catalog",
            f"known: {', '.join(e.id for e in self.entries)} (see `desktop-rag models list`)",
        )

    def of_kind(self, kind: Kind) -> list[CatalogEntry]:
        return [e for e in self.entries if e.kind == kind]


def packaged_text() -> str:
    return resources.files("desktop_rag").joinpath("resources/model_catalog.json").read_text(
        encoding="utf-8"
    )


def parse_catalog(text: str, source: str) -> tuple[str, list[CatalogEntry]]:
    """The version and the checked entries of one catalog file's text."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CatalogError(f"{source} is not valid JSON: {exc}", "fix or delete the file") from exc
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        raise CatalogError(f"{source}: expected an object with an 'entries' list",
                           'start from {"schema": 1, "entries": []}')
    schema = data.get("schema", SCHEMA)
    if schema != SCHEMA:
        raise CatalogError(f"{source}: catalog schema {schema!r} is not supported",
                           f"this version of desktop-rag reads schema {SCHEMA}")
    entries = [parse_entry(item, source, n) for n, item in enumerate(data["entries"])]
    _refuse_duplicates(entries, source, set())
    return str(data.get("catalog_version", "")), entries


def _refuse_duplicates(entries: list[CatalogEntry], source: str, taken: set[str]) -> None:
    for entry in entries:
        if entry.id in taken:
            raise CatalogError(f"{source}: entry {entry.id!r} is defined twice "
                               "(in this file, or already in the packaged catalog)",
                               "give your entry an id of its own")
        taken.add(entry.id)


def load_catalog(config_dir: Path | None = None) -> Catalog:
    """The packaged entries, then the user's own from `config_dir/model_catalog.json`."""
    version, entries = parse_catalog(packaged_text(), PACKAGED_NAME)
    user = config_dir / USER_FILE if config_dir is not None else None
    if user is not None and user.is_file():
        try:
            text = user.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CatalogError(f"Cannot read {user}: {exc}", "fix or delete the file") from exc
        _, own = parse_catalog(text, str(user))
        _refuse_duplicates(own, str(user), {e.id for e in entries})
        entries += own
    return Catalog(version, tuple(entries))
