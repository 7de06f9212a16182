"""Builds Word, PowerPoint, Excel and e-mail files with the real libraries, for the tests and
the ingest benchmark. Every file holds facts the tests ask about."""

from __future__ import annotations

import datetime as dt
from email.message import EmailMessage
from pathlib import Path

BUDGET_ROWS = [  # item, category, month, amount
    ("Rent", "housing", "January", 1200), ("Groceries", "food", "January", 310.5),
    ("Rent", "housing", "February", 1200), ("Electricity", "utilities", "February", 88),
    ("Groceries", "food", "February", 295), ("Rent", "housing", "March", 1250),
    ("Internet", "utilities", "March", 40), ("Groceries", "food", "March", 301),
]


def make_docx(path: Path, paragraphs: int = 3) -> Path:
    """A report: a title, two sections, a list, a captioned table, a header, a footnote-free
    body and a comment."""
    import docx

    document = docx.Document()
    document.core_properties.title = "Quarterly Report of the Wombat Cooperative"
    document.add_heading("Quarterly Report", level=0)
    document.add_heading("Revenue", level=1)
    document.add_paragraph("Revenue grew in the third quarter because the marmalade line sold "
                           "out in every shop.")
    for i in range(paragraphs - 1):
        document.add_paragraph(f"Paragraph {i} about the orchards and their harvest yields.")
    document.add_paragraph("Apricot jam", style="List Bullet")
    document.add_paragraph("Quince jelly", style="List Bullet")
    document.add_paragraph("Table 1: Revenue by region")
    table = document.add_table(rows=3, cols=3)
    for r, row in enumerate([("Region", "2024", "2023"), ("North", "1,200", "1,050"),
                             ("South", "980", "1,010")]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    document.add_heading("Outlook", level=1)
    para = document.add_paragraph("The board expects the cooperative to open a shop in Ballarat.")
    document.add_comment(para.runs, text="Check the Ballarat lease first.", author="Anna")
    document.sections[0].header.paragraphs[0].text = "Wombat Cooperative — confidential"
    document.save(str(path))
    return path


def make_pptx(path: Path, slides: int = 3, chart: bool = False) -> Path:
    """A deck: slide 1 a title, slide 2 the launch date with notes, slide 3 a table; a chart
    slide next when asked, then filler slides up to `slides`."""
    import pptx
    from pptx.util import Inches

    deck = pptx.Presentation()
    title = deck.slides.add_slide(deck.slide_layouts[0])
    title.shapes.title.text = "Project Platypus"
    title.placeholders[1].text = "Kick-off meeting"
    launch = deck.slides.add_slide(deck.slide_layouts[1])
    launch.shapes.title.text = "Launch plan"
    body = launch.placeholders[1].text_frame
    body.text = "The platypus app launches on 14 October 2025."
    body.add_paragraph().text = "Beta testers: forty volunteers from the river club."
    launch.notes_slide.notes_text_frame.text = "Mention the delayed sonar module."
    tabled = deck.slides.add_slide(deck.slide_layouts[5])
    tabled.shapes.title.text = "Budget by team"
    grid = tabled.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for r, row in enumerate([("Team", "Budget"), ("Sonar", "52,000"), ("Design", "18,500")]):
        for c, value in enumerate(row):
            grid.cell(r, c).text = value
    if chart:
        from pptx.chart.data import CategoryChartData
        from pptx.enum.chart import XL_CHART_TYPE

        charted = deck.slides.add_slide(deck.slide_layouts[5])
        charted.shapes.title.text = "Sightings"
        data = CategoryChartData()
        data.categories = ["2023", "2024"]
        data.add_series("Platypus", (14, 23))
        data.add_series("Echidna", (5, 9.5))
        charted.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2),
                                 Inches(6), Inches(4), data)
    for i in range(3, slides):
        extra = deck.slides.add_slide(deck.slide_layouts[1])
        extra.shapes.title.text = f"Milestone {i}"
        extra.placeholders[1].text_frame.text = f"Milestone {i} covers testing of part {i}."
    deck.save(str(path))
    return path


def make_xlsx(path: Path, extra_rows: int = 0, marker: str = "Anna Berg") -> Path:
    """A household budget: a caption line, a header, BUDGET_ROWS (and filler rows), a formula
    total whose value is saved as Excel would; a second sheet of contacts."""
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Budget"
    sheet.append(["Household budget 2025"])
    sheet.append(["Item", "Category", "Month", "Amount"])
    for row in BUDGET_ROWS:
        sheet.append(list(row))
    for i in range(extra_rows):
        sheet.append([f"Misc {i}", "other", "April", i % 50])
    contacts = book.create_sheet("Contacts")
    contacts.append(["Name", "Role", "Since"])
    contacts.append([marker, "landlord", dt.date(2019, 5, 1)])
    contacts.append(["Ravi Iyer", "plumber", dt.date(2021, 2, 15)])
    book.save(str(path))
    return path


def make_eml(
    path: Path, sender: str, subject: str, body: str, date: str = "Mon, 03 Mar 2025 09:30:00 +0000",
    attachments: list[tuple[str, bytes, str]] | None = None, html: bool = False,
) -> Path:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = "Bob Smith <bob@example.org>"
    message["Date"] = date
    message["Subject"] = subject
    if html:
        message.set_content(f"<html><body><p>{body}</p><script>alert(1)</script></body></html>",
                            subtype="html")
    else:
        message.set_content(body)
    for name, data, mime in attachments or []:
        main, sub = mime.split("/")
        message.add_attachment(data, maintype=main, subtype=sub, filename=name)
    path.write_bytes(bytes(message))
    return path


def make_mixed_folder(folder: Path) -> Path:
    """A work folder: a Word report, a deck, a budget sheet, e-mails (one with a sheet and a
    Word attachment) and a Markdown note."""
    folder.mkdir(parents=True, exist_ok=True)
    make_docx(folder / "report.docx")
    make_pptx(folder / "platypus.pptx")
    make_xlsx(folder / "budget.xlsx")
    attached = make_docx(folder.parent / "lease-terms.docx")
    make_eml(folder / "lease.eml", "Anna Berg <anna@example.org>", "Lease renewal",
             "Hi Bob,\n\nThe lease renewal starts in April and the rent rises to 1,250.\n\nAnna",
             attachments=[("lease-terms.docx", attached.read_bytes(),
                           "application/vnd.openxmlformats-officedocument"
                           ".wordprocessingml.document")])
    make_eml(folder / "garden.eml", "Anna Berg <anna@example.org>", "Garden party",
             "The garden party is on Saturday; bring the lemon tart.", html=True)
    make_eml(folder / "invoice.eml", "Ravi Iyer <ravi@example.org>", "Plumbing invoice",
             "The invoice for the kitchen tap repair is 180 dollars.",
             date="Tue, 04 Mar 2025 10:00:00 +0000")
    (folder / "note.md").write_text("# Shopping\n\nBuy kumquats for the marmalade.\n")
    return folder
