"""OpenDocument files written by hand, as the specification lays them out (a zip with a stored
"mimetype" first, content.xml and meta.xml): no ODF writer is installed, and the XML is small."""

from __future__ import annotations

import zipfile
from pathlib import Path

NAMESPACES = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/"'
)
MIME = {".odt": "text", ".odp": "presentation", ".ods": "spreadsheet"}


def write_odf(path: Path, body: str, title: str = "") -> Path:
    kind = MIME[path.suffix]
    content = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {NAMESPACES}>'
               f"<office:body><office:{kind}>{body}</office:{kind}></office:body>"
               "</office:document-content>")
    meta = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-meta {NAMESPACES}>'
            f"<office:meta><dc:title>{title}</dc:title></office:meta></office:document-meta>")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("mimetype"),
                   f"application/vnd.oasis.opendocument.{kind}", zipfile.ZIP_STORED)
        z.writestr("content.xml", content)
        z.writestr("meta.xml", meta)
    return path


def _row(*cells: str, repeat: int = 1) -> str:
    inner = "".join(f"<table:table-cell><text:p>{c}</text:p></table:table-cell>" if c else
                    "<table:table-cell/>" for c in cells)
    rep = f' table:number-rows-repeated="{repeat}"' if repeat > 1 else ""
    return f"<table:table-row{rep}>{inner}</table:table-row>"


def make_odt(path: Path) -> Path:
    body = (
        '<text:h text:outline-level="1">Harvest</text:h>'
        "<text:p>The quince harvest doubled<text:note><text:note-citation>1</text:note-citation>"
        "<text:note-body><text:p>Counted in crates.</text:p></text:note-body></text:note>"
        " after the wet spring.</text:p>"
        "<text:list><text:list-item><text:p>Quince paste</text:p></text:list-item></text:list>"
        '<table:table table:name="Crates by year">'
        + _row("Fruit", "2024", "2023") + _row("Quince", "310", "150") + "</table:table>"
    )
    return write_odf(path, body, "Orchard report")


def make_odp(path: Path) -> Path:
    body = (
        '<draw:page draw:name="page1"><draw:frame presentation:class="title"><draw:text-box>'
        "<text:p>Wombat tour</text:p></draw:text-box></draw:frame></draw:page>"
        '<draw:page draw:name="page2"><draw:frame presentation:class="title"><draw:text-box>'
        "<text:p>Route</text:p></draw:text-box></draw:frame>"
        "<draw:frame><draw:text-box><text:p>The tour starts at the Ballarat gate.</text:p>"
        "</draw:text-box></draw:frame>"
        "<presentation:notes><draw:frame><draw:text-box><text:p>Bring the torches.</text:p>"
        "</draw:text-box></draw:frame></presentation:notes></draw:page>"
    )
    return write_odf(path, body)


def make_ods(path: Path) -> Path:
    """A sheet with a caption, a header, two rows, and LibreOffice's empty million-row tail."""
    body = (
        '<table:table table:name="Stock">' + _row("Pantry stock")
        + _row("Item", "Jars") + _row("Apricot jam", "12") + _row("Quince jelly", "7")
        + '<table:table-row table:number-rows-repeated="1048570">'
        '<table:table-cell table:number-columns-repeated="16384"/></table:table-row>'
        + "</table:table>"
    )
    return write_odf(path, body)
