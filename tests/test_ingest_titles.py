"""Which title a document shows: its metadata title when it is one, else its file's name."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.ingest.loaders import load
from desktop_rag.store.titles import file_title, shown_title

MMLONGBENCH = Path(__file__).resolve().parents[2] / "shared" / "data" / "mmlongbench" / "documents"

GIVE_WAY = [  # (metadata title, file, title shown)
    ("0001065280-16-000047", "/r/Netflix_10K_2015.pdf", "Netflix 10K 2015"),  # SEC accession
    ("0000320187-21-000028", "/r/NIKE_2021_10K.pdf", "NIKE 2021 10K"),
    ("d41d8cd98f00b204e9800998ecf8427e", "/r/Annual-Report-2019.pdf", "Annual Report 2019"),
    ("123e4567-e89b-12d3-a456-426614174000", "/r/board_minutes.pdf", "board minutes"),
    ("20190312104455", "/r/scan_of_lease.pdf", "scan of lease"),
    ("2303.05039v2", "/r/personality-recsys.pdf", "personality recsys"),  # arXiv id
    ("INS1-972072899", "/r/care_home_inspection.pdf", "care home inspection"),
    ("2019", "/r/budget.pdf", "budget"),
    ("untitled", "/r/trip_plan.pdf", "trip plan"),
    ("Untitled-1", "/r/poster.pdf", "poster"),
    ("Untitled1 Project Plan", "/r/plan.pdf", "plan"),
    ("Microsoft Word - Q3 results final.docx", "/r/q3_results.pdf", "q3 results"),
    ("Microsoft PowerPoint - deck", "/r/kickoff-deck.pdf", "kickoff deck"),
    ("Word - notes", "/r/minutes.pdf", "minutes"),
    ("report.pdf", "/r/2015_annual_report.pdf", "2015 annual report"),
    ("doc1.dvi", "/r/thesis.pdf", "thesis"),
    ("p13.eps", "/r/afe620b9.pdf", "afe620b9"),
    ("C:\\Users\\ann\\Desktop\\draft3.doc", "/r/grant_proposal.pdf", "grant proposal"),
    ("Slide 1", "/r/q3-sales-review.pdf", "q3 sales review"),
    ("PowerPoint Presentation", "/r/kickoff.pdf", "kickoff"),
    ("PowerPoint-Präsentation", "/r/Vortrag_Berlin.pdf", "Vortrag Berlin"),
    ("Presentation", "/r/sales_presentation.pdf", "sales presentation"),  # shares a word
    ("Document", "/r/lease_agreement.pdf", "lease agreement"),
    ("Document1", "/r/lease_agreement.pdf", "lease agreement"),
    ("Layer 1", "/r/floor_plan.pdf", "floor plan"),
    ("R Graphics Output", "/r/figure_3.pdf", "figure 3"),
    ("Adobe Illustrator Artwork", "/r/logo_guide.pdf", "logo guide"),
    ("A", "/r/alpha.pdf", "alpha"),
    ("UG", "/r/watch_d.pdf", "watch d"),  # one or two characters
    ("", "/r/empty_title.pdf", "empty title"),
    (None, "/r/no_title.pdf", "no title"),
    ("   \n ", "/r/blank_title.pdf", "blank title"),
    ("\u00fe\u00ff\x00M\x00M", "/r/mmdet.pdf", "mmdet"),  # UTF-16 bytes read as Latin-1
    ("\\376\\377\\000M\\000M", "/r/mmdet.pdf", "mmdet"),  # octal escapes left in
    ("Caf\ufffd menu", "/r/cafe_menu.pdf", "cafe menu"),
    ("NETFLIX_2015_10K", "/r/NETFLIX_2015_10K.pdf", "NETFLIX 2015 10K"),  # its own file name
    ("word " * 80, "/r/long.pdf", "long"),  # a paragraph, not a title
]

KEPT = [  # (metadata title, file, title shown)
    ("Attention Is All You Need", "/r/1706.03762v7.pdf", "Attention Is All You Need"),
    ("Improving Recommendation Systems with User Personality Inferred from Product Reviews",
     "/r/2303.05039v2.pdf",
     "Improving Recommendation Systems with User Personality Inferred from Product Reviews"),
    ("10-K - 02/07/2019 - 3M Company", "/r/3M_2018_10K.pdf", "10-K - 02/07/2019 - 3M Company"),
    ("Owner's Manual", "/r/owners-manual-2170416.pdf", "Owner's Manual"),
    ("Exhibit 300:  Capital Asset\nPlan", "/r/936c0e2c.pdf", "Exhibit 300: Capital Asset Plan"),
    ("\ufeffTransactions ", "/r/fd76bbefe469561966e5387aa709c482.pdf", "Transactions"),
    ("MMDetection", "/r/mmdetection-readthedocs-io-en-v2.18.0.pdf", "MMDetection"),
    ("HONOR Watch GS Pro OnlineHelp\uff0801,en\uff09", "/r/honor_watch_gs_pro.pdf",
     "HONOR Watch GS Pro OnlineHelp\uff0801,en\uff09"),
    ("Document management at scale", "/r/dms.pdf", "Document management at scale"),
    ("Final Report on Water Quality", "/r/wq.pdf", "Final Report on Water Quality"),
    ("ADBE 10K FY15", "/r/ADOBE_2015_10K.pdf", "ADBE 10K FY15"),
    ("Version 2.0 release notes", "/r/notes.pdf", "Version 2.0 release notes"),
    ("Node.js in Action", "/r/node.pdf", "Node.js in Action"),
    ("STEPBACK", "/r/paper.pdf", "STEPBACK"),
]


@pytest.mark.parametrize(("stated", "path", "shown"), GIVE_WAY + KEPT)
def test_the_title_shown(stated: str | None, path: str, shown: str) -> None:
    assert shown_title(stated, path) == shown


@pytest.mark.parametrize(("path", "title"), [
    ("/r/Netflix_10K_2015.pdf", "Netflix 10K 2015"),
    ("/r/12-15-15-ISIS-and-terrorism-release.pdf", "12-15-15 ISIS and terrorism release"),
    ("/r/PG_2020.03.09_US-Germany_FINAL.pdf", "PG 2020.03.09 US Germany FINAL"),
    ("C:\\Docs\\Annual%20Report%202015.pdf", "Annual Report 2015"),
    ("/r/__init__.pdf", "init"),
    ("/r/___.pdf", "___"),
    ("/r/.hidden", ".hidden"),
    ("/r/README", "README"),
])
def test_a_title_made_from_the_file_name(path: str, title: str) -> None:
    assert file_title(path) == title


REAL = {  # file -> (title shown, metadata title), as PyMuPDF reads them
    "NETFLIX_2015_10K.pdf": ("NETFLIX 2015 10K", "0001065280-16-000047"),
    "AMAZON_2017_10K.pdf": ("AMAZON 2017 10K", "0001018724-18-000005"),
    "2303.05039v2.pdf": (
        "Improving Recommendation Systems with User Personality Inferred from Product Reviews",
    ) * 2,
    "owners-manual-2170416.pdf": ("Owner's Manual", "Owner's Manual"),
    "watch_d.pdf": ("watch d", "UG"),
    "ISEP_student_handbook_2020.pdf": ("ISEP student handbook 2020", None),
}


@pytest.mark.skipif(not MMLONGBENCH.is_dir(), reason="the shared benchmark PDFs are not here")
@pytest.mark.parametrize("name", sorted(REAL))
def test_real_pdfs_show_readable_titles(name: str) -> None:
    loaded = load(MMLONGBENCH / name)
    try:
        assert (loaded.title, loaded.stated_title) == REAL[name]
    finally:
        next(loaded.segments, None)
        loaded.segments.close()  # type: ignore[attr-defined]  # closes the document
