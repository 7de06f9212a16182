"""The Models dialog's tables: one row per catalog entry, coloured by how it fits."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from desktop_rag.catalog.describe import size_text, state_text
from desktop_rag.catalog.fit import Verdict
from desktop_rag.catalog.service import ModelRow

COLUMNS = ("Model", "Size", "On disk", "Fit on this machine", "Languages", "Licence")
FIT_COLOURS = {Verdict.RUNS_WELL: "#1b7a2e", Verdict.RUNS_SLOWLY: "#a15c00",
               Verdict.DOES_NOT_FIT: "#b3261e"}


def entry_id_at(table: QTableWidget, row: int) -> str | None:
    item = table.item(row, 0)
    value = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
    return value if isinstance(value, str) else None


def new_table() -> QTableWidget:
    table = QTableWidget(0, len(COLUMNS))
    table.setHorizontalHeaderLabels(list(COLUMNS))
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().hide()
    table.setWordWrap(False)
    header = table.horizontalHeader()
    for column in range(len(COLUMNS)):
        header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    return table


def languages_text(languages: tuple[str, ...]) -> str:
    """Short enough for a column: '13+ languages', 'en, zh + others' or 'en, de, fr'."""
    named = [code for code in languages if code != "multilingual"]
    if len(named) >= 4 and "multilingual" in languages:
        return f"{len(named)}+ languages"
    if "multilingual" in languages:
        return ", ".join(named) + " + others" if named else "many"
    return ", ".join(named[:4]) + (f" + {len(named) - 4}" if len(named) > 4 else "")


def short_licence(licence: str) -> str:
    return licence if len(licence) <= 24 else licence[:22] + "\u2026"


def fill(table: QTableWidget, rows: list[ModelRow]) -> None:
    table.setRowCount(len(rows))
    for n, row in enumerate(rows):
        marks = " (recommended)" if row.recommended else ""
        fit = QTableWidgetItem(row.fit.verdict.value + (" (GPU)" if row.fit.on_gpu else ""))
        fit.setForeground(QColor(FIT_COLOURS[row.fit.verdict]))
        state = ("in use \u00b7 " if row.in_use else "") + state_text(row)
        cells = [QTableWidgetItem(row.entry.name + marks),
                 QTableWidgetItem(size_text(row.entry.download_mb)), QTableWidgetItem(state), fit,
                 QTableWidgetItem(languages_text(row.entry.languages)),
                 QTableWidgetItem(short_licence(row.entry.licence))]
        cells[0].setData(Qt.ItemDataRole.UserRole, row.entry.id)
        if row.in_use:
            bold = QFont()
            bold.setBold(True)
            cells[0].setFont(bold)
        for column, cell in enumerate(cells):
            cell.setToolTip(f"{row.entry.description}\n{row.fit.verdict.value}: "
                            f"{row.fit.reason}\nlicence: {row.entry.licence}\n"
                            f"languages: {', '.join(row.entry.languages)}")
            table.setItem(n, column, cell)


def details_html(row: ModelRow) -> str:
    entry = row.entry
    facts = [entry.description, f"{entry.params_b:g}B parameters",
             f"context {entry.context_length:,} tokens",
             f"needs {size_text(entry.ram_mb)} of memory"
             + (f" ({size_text(entry.vram_mb)} of VRAM on a GPU)" if entry.vram_mb else "")]
    if entry.embedding is not None and entry.embedding.query_prefix:
        facts.append(f"query prefix {entry.embedding.query_prefix!r}, passage prefix "
                     f"{entry.embedding.passage_prefix!r}")
    facts.append("sha256 pinned in the catalog" if entry.integrity == "pinned"
                 else "sha256 announced by the hub, checked after download")
    where = f" \u00b7 {row.installed.path}" if row.installed.path else ""
    colour = FIT_COLOURS[row.fit.verdict]
    fit = f"<span style='color:{colour}'><b>{row.fit.verdict.value}</b>: {row.fit.reason}</span>"
    best = " \u2014 recommended for this machine" if row.recommended else ""
    return (f"<b>{entry.name}</b> ({entry.repo or 'packaged'}){where}{best}<br>{fit}<br>"
            + " \u00b7 ".join(facts))
