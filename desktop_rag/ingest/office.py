"""Everyday documents: Word, PowerPoint, Excel, OpenDocument and e-mail, each read by its own
adapter.

The Office formats are zip packages, checked first (office_guard: zip bombs, corrupt or
encrypted files, old binary formats under a new name); e-mail needs no library. Each adapter
module imports its library on first use, so the app starts without them.
"""

from __future__ import annotations

from pathlib import Path

from desktop_rag.ingest.office_guard import check_package
from desktop_rag.ingest.segments import LoadedDocument

WORD_SUFFIXES = frozenset({".docx", ".docm", ".dotx", ".dotm"})
SLIDE_SUFFIXES = frozenset({".pptx", ".pptm"})
SHEET_SUFFIXES = frozenset({".xlsx", ".xlsm"})
MAIL_SUFFIXES = frozenset({".eml", ".mbox"})
ODF_SUFFIXES = frozenset({".odt", ".odp", ".ods"})
OFFICE_SUFFIXES = WORD_SUFFIXES | SLIDE_SUFFIXES | SHEET_SUFFIXES | ODF_SUFFIXES
EVERYDAY_SUFFIXES = OFFICE_SUFFIXES | MAIL_SUFFIXES


def load_everyday(path: Path) -> LoadedDocument:
    """Opens a Word, PowerPoint, Excel, OpenDocument or e-mail file; LoadError with the reason
    otherwise."""
    suffix = path.suffix.lower()
    if suffix in MAIL_SUFFIXES:
        from desktop_rag.ingest import mail

        return mail.load_mbox(path) if suffix == ".mbox" else mail.load_eml(path)
    check_package(path)
    if suffix in WORD_SUFFIXES:
        from desktop_rag.ingest.office_docx import load_docx

        return load_docx(path)
    if suffix in SLIDE_SUFFIXES:
        from desktop_rag.ingest.office_pptx import load_pptx

        return load_pptx(path)
    if suffix in ODF_SUFFIXES:
        from desktop_rag.ingest.office_odf import load_odf

        return load_odf(path)
    from desktop_rag.ingest.office_xlsx import load_xlsx

    return load_xlsx(path)
