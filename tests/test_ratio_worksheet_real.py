"""A named ratio through the real parts: a PDF with an income statement and a balance sheet,
read by PyMuPDF's table finder in the table pass, chunked, indexed in Chroma on disk and FTS5,
searched with the packaged MiniLM; the app reads the ratio's lines from the statements,
gives the model the worked calculation, and checks the answer's copy of it. The model is a
scripted one that copies the line, so what is tested is the app's part, exactly."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from table_pdfs import statements_pdf

from desktop_rag.config import Settings
from desktop_rag.domain import CalculationProblem
from desktop_rag.domain.fakes import FakeChatEngine
from desktop_rag.domain.protocols import ChatMessage, TokenCallback

pytestmark = pytest.mark.slow
_WORKED = re.compile(r"^Calculation: [0-9(].*$", re.MULTILINE)  # not the bare form "a [n] / b [n]"


class CopiesTheWorkedLine(FakeChatEngine):
    """A model that writes the calculation the app gave it, then a sentence."""

    def generate(self, messages: Sequence[ChatMessage], max_tokens: int,
                 on_token: TokenCallback | None = None, cancel: Any = None) -> Any:  # fmt: skip
        worked = _WORKED.findall(messages[-1].content)
        result = worked[-1].rsplit("= ", 1)[-1] if worked else ""
        self.reply = f"{worked[-1]}\nThe ratio was {result} [2]." if worked else "No idea."
        return super().generate(messages, max_tokens, on_token, cancel)


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from desktop_rag.bootstrap import build_context
    from desktop_rag.services import Services

    root = tmp_path_factory.mktemp("ratio")
    pdf = statements_pdf(root / "docs" / "trailrunner-10k.pdf")
    ctx = build_context(str(root / "lib"), settings=Settings(profile="tiny"),
                        overrides={"engine": CopiesTheWorkedLine()})  # fmt: skip
    found = Services(ctx)
    assert not found.ingest([pdf]).failed
    yield found
    found.close()


def test_the_inventory_turnover_is_worked_out_from_both_statements(services: Any) -> None:
    answer = services.ask("What is Trailrunner's FY2021 inventory turnover ratio? Round your "
                          "answer to two decimal places.")  # fmt: skip
    (calc,) = answer.calculations
    assert calc.problem is CalculationProblem.OK
    assert calc.result_text == "3.46"  # 24,576 ÷ ((6,854 + 7,367) ÷ 2)
    assert [i.text for i in calc.inputs if not i.constant] == ["24,576", "6,854", "7,367"]
    cited = {n for i in calc.inputs for n in i.found_in}
    pages = {p.chunk.pages[0] for p in answer.passages if p.n in cited}
    assert pages == {2, 3}  # cost of sales from the income statement, inventories the balance


def test_the_current_ratio_reads_the_year_asked(services: Any) -> None:
    answer = services.ask("What was the current ratio in fiscal 2020?")
    (calc,) = answer.calculations
    assert calc.checked and calc.result_text == "2.48"  # 20,556 ÷ 8,284
    assert "3.46" not in answer.answer


def test_with_the_worksheet_off_the_model_is_asked_for_the_formula(services: Any) -> None:
    services.ctx.update_settings({"llm.ratio_worksheet": False})
    try:
        answer = services.ask("What is the current ratio in 2021?")
    finally:
        services.ctx.update_settings({"llm.ratio_worksheet": True})
    assert answer.answer == "No idea." and not answer.calculations
