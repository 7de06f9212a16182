"""Build folders of the vector copy: each change of the copy gets a new folder (the pointer moves
to it atomically, vector_copy._publish), whose unchanged files are hard links to the old one's."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path


def new_build(folder: Path) -> str:
    """A new, empty build folder in `folder`; its name."""
    build = f"build-{uuid.uuid4().hex[:12]}"
    (folder / build).mkdir(parents=True)
    return build


def link_or_copy(source: Path, target: Path) -> None:
    """`target` as a hard link to `source` (nothing copied, whatever the size), or a copy where
    the file system has no hard links."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def extended_codes(docs: Sequence[str], added: Sequence[str]) -> tuple[list[str], list[int]]:
    """The document of each code once `added` rows' documents have codes too, and those codes
    (a document already coded keeps its code)."""
    codes = {d: i for i, d in enumerate(docs)}
    new_codes = [codes.setdefault(doc, len(codes)) for doc in added]
    return list(codes), new_codes
