"""The library as a Qt item model: catalog documents plus files that failed to ingest."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QApplication, QStyle

from desktop_rag.domain import DocKind, DocStatus, Document, FileOutcome

COLUMNS = ("Title", "Type", "Pages", "Chunks", "Status", "Core")
ModelIndex = QModelIndex | QPersistentModelIndex
MISSING_TIP = ("\nThe file is not there now (moved, or on a drive not mounted); the document "
               "stays searchable, but it cannot be opened until the file is back.")
TABLES_TIP = ("\nSearchable from its text; the tables on its pages (and the words in its "
              "pictures) are being read, and join those pages' text in a moment.")


@dataclass(frozen=True, slots=True)
class LibraryRow:
    path: str
    title: str
    kind: str
    pages: int
    chunks: int
    status: str
    is_core: bool = False
    error: str | None = None
    doc_id: str | None = None
    missing: bool = False  # indexed, but its file is not there now (a drive not mounted?)
    tables_pending: bool = False  # searchable from its text; its tables are still being read

    @property
    def failed(self) -> bool:
        return self.status == DocStatus.FAILED.value


def row_from_document(doc: Document, missing: bool = False, tables: bool = False) -> LibraryRow:
    return LibraryRow(
        doc.path, doc.title, _shown_kind(doc), doc.pages, doc.chunks, doc.status.value,
        doc.is_core, doc.error, doc.doc_id, missing, tables,
    )


def _shown_kind(doc: Document) -> str:
    """The Type column: pdf, markdown, text, else the file's own type (pptx, eml, epub ...)."""
    if doc.kind is not DocKind.OTHER:
        return doc.kind.value
    return Path(doc.path).suffix.lstrip(".").lower() or doc.kind.value


def row_from_failure(outcome: FileOutcome) -> LibraryRow:
    name = Path(outcome.path).name
    return LibraryRow(outcome.path, name, Path(name).suffix.lstrip(".") or "?", 0, 0,
                      DocStatus.FAILED.value, error=outcome.reason or "could not be read")


def merge_rows(
    docs: list[Document], failures: list[FileOutcome], missing: frozenset[str] = frozenset(),
    tables_pending: frozenset[str] = frozenset(),
) -> list[LibraryRow]:
    """Documents first (those whose file is in `missing`, and those whose doc id is in
    `tables_pending`, marked); failures only for paths the catalog does not know."""
    rows = [row_from_document(d, d.path in missing, d.doc_id in tables_pending) for d in docs]
    known = {r.path for r in rows}
    rows += [row_from_failure(f) for f in failures if f.path not in known]
    return rows


class LibraryModel(QAbstractTableModel):
    def __init__(self) -> None:
        super().__init__()
        self._rows: list[LibraryRow] = []
        self._asked_about: frozenset[str] = frozenset()  # doc ids the chat is scoped to

    def set_asked_about(self, doc_ids: frozenset[str]) -> None:
        """Shows the documents the chat asks about in bold (none: the whole library)."""
        self._asked_about = doc_ids
        if self._rows:
            last = self.index(len(self._rows) - 1, len(COLUMNS) - 1)
            self.dataChanged.emit(self.index(0, 0), last, [Qt.ItemDataRole.FontRole])

    def set_rows(self, rows: list[LibraryRow]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def row_at(self, row: int) -> LibraryRow:
        return self._rows[row]

    def rows(self) -> list[LibraryRow]:
        return list(self._rows)

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        row = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return _display(row, index.column())
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.error if row.failed else row.path + _tip(row)
        if role == Qt.ItemDataRole.ForegroundRole and row.missing:
            return QApplication.palette().color(QPalette.ColorRole.PlaceholderText)
        if role == Qt.ItemDataRole.DecorationRole and index.column() == 4 and row.failed:
            return QApplication.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        if role == Qt.ItemDataRole.FontRole and row.doc_id in self._asked_about:
            bold = QFont()
            bold.setBold(True)
            return bold
        if role == Qt.ItemDataRole.UserRole:
            return row
        return None


def _display(row: LibraryRow, column: int) -> str:
    if column == 4:
        if row.failed:
            return f"failed: {row.error}"
        if row.missing:
            return f"{row.status}, file missing"
        return f"{row.status}, tables pending" if row.tables_pending else row.status
    if column == 5:
        return "pinned" if row.is_core else ""
    pages = str(row.pages) if row.pages else "\u2013"  # a note has no pages
    values = (row.title, row.kind, pages, str(row.chunks))
    return values[column]


def _tip(row: LibraryRow) -> str:
    return (MISSING_TIP if row.missing else "") + (TABLES_TIP if row.tables_pending else "")


class LibraryFilter(QSortFilterProxyModel):
    """Case-insensitive filter on title and path."""

    def __init__(self) -> None:
        super().__init__()
        self._needle = ""

    def set_needle(self, text: str) -> None:
        self.beginFilterChange()
        self._needle = text.strip().lower()
        self.endFilterChange()

    def filterAcceptsRow(self, source_row: int, source_parent: ModelIndex) -> bool:
        model = self.sourceModel()
        if not isinstance(model, LibraryModel):
            return True
        row = model.row_at(source_row)
        needle = self._needle
        return not needle or needle in row.title.lower() or needle in row.path.lower()
