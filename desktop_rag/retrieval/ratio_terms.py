"""The statement lines a financial ratio is computed from, for the keyword search.

"What is Nike's FY2021 inventory turnover ratio?" shares no word with the pages that answer it:
the ratio is cost of sales over inventories, and those are lines of the income statement and
the balance sheet, which never say "turnover". An analyst knows which lines a ratio needs and
opens those statements; this module is that knowledge, from the standard definitions of the
ratios (not from any document), as words added to the BM25 query. The embedder's query stays
the question itself.
"""

from __future__ import annotations

import re

INCOME = "consolidated statements of income operations earnings total revenues net income"
BALANCE = "consolidated balance sheets total assets total liabilities shareholders equity"
CASH_FLOWS = "consolidated statements of cash flows operating activities"

_MONEY = (
    r"(?:sales|revenues?|debt|equity|assets?|liabilit(?:y|ies)|capital|expenses?|income|cash|"
    r"profits?|earnings|r&d|inventor(?:y|ies)|capex|dividends?)"
)
# (pattern of the ratio's names, the lines it is computed from and the statements that hold them)
_RATIOS: tuple[tuple[str, str], ...] = (
    (r"inventory turnover|days (?:of )?inventory|\bdio\b",
     f"cost of sales revenue inventories {INCOME} {BALANCE}"),
    (r"receiv\w* turnover|days sales outstanding|\bdso\b",
     f"revenues accounts receivable net {INCOME} {BALANCE}"),
    (r"payables? turnover|days payables? outstanding|\bdpo\b",
     f"accounts payable cost of sales {INCOME} {BALANCE}"),
    (r"cash conversion cycle",
     f"inventories accounts receivable accounts payable cost of sales {INCOME} {BALANCE}"),
    (r"current ratio|working capital",
     f"total current assets total current liabilities {BALANCE}"),
    (r"quick ratio|acid.test",
     f"cash equivalents short-term investments accounts receivable total current liabilities "
     f"{BALANCE}"),
    (r"cash ratio",
     f"cash and cash equivalents short-term investments total current liabilities {BALANCE}"),
    (r"return on (?:average )?(?:total )?assets?|\broa\b|asset turnover",
     f"net income total assets {INCOME} {BALANCE}"),
    (r"return on (?:average )?(?:shareholders'? |stockholders'? )?equity|\broe\b",
     f"net income total shareholders equity stockholders equity {INCOME} {BALANCE}"),
    (r"return on capital|invested capital|capitali[sz]ation ratio|\broce\b|\broic\b",
     f"operating income long-term debt total equity {INCOME} {BALANCE}"),
    (r"interest coverage|times interest earned|interest expense to",
     f"operating income interest expense long-term debt {INCOME}"),
    (r"ebitda|before depreciation",
     f"operating income depreciation and amortization {INCOME} {CASH_FLOWS}"),
    (r"debt to (?:equity|ebitda|capital)|debt ratio|leverage ratio",
     f"long-term debt total liabilities equity {BALANCE}"),
    (r"gross (?:profit )?margin",
     f"gross profit net revenues cost of sales {INCOME}"),
    (r"operating (?:profit )?margin", f"operating income net revenues {INCOME}"),
    (r"(?:net )?profit margin|net margin", f"net income net revenues {INCOME}"),
    (r"effective tax|tax rate", f"income before income taxes provision for income taxes {INCOME}"),
    (r"fixed asset turnover|capex|capital expenditures?",
     f"property and equipment net purchases of property and equipment revenues {CASH_FLOWS}"),
    (r"free cash flow|operating cash flow ratio|cash flow to",
     f"net cash provided by operating activities purchases of property and equipment "
     f"total current liabilities {CASH_FLOWS}"),
    (r"payout ratio|dividends? per share", f"dividends declared net income {INCOME}"),
    (r"earnings per share|\beps\b", f"net income per share diluted weighted average {INCOME}"),
    # "sales to working capital ratio", "R&D to asset ratio": the lines are named; the statements
    # (a financial noun on one side: "signal to noise ratio" is no statement's)
    (rf"\b{_MONEY}\b[\w&' -]{{0,40}}\bto\b[\w&' -]{{0,40}}\bratio\b|"
     rf"\bto\b[\w&' -]{{0,40}}\b{_MONEY}\b[\w&' -]{{0,20}}\bratio\b",
     f"{INCOME} {BALANCE} {CASH_FLOWS}"),
)  # fmt: skip
_COMPILED = tuple((re.compile(pattern, re.IGNORECASE), lines) for pattern, lines in _RATIOS)


def ratio_terms(question: str) -> str:
    """The statement lines and titles the ratios `question` names are computed from ("" when it
    names none), each word once."""
    text = re.sub(r"[\s_]+", " ", question)  # "cash_ratio", "payables  turnover"
    found = [lines for pattern, lines in _COMPILED if pattern.search(text)]
    return " ".join(dict.fromkeys(" ".join(found).split()))
