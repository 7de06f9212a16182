"""Every command that names documents finds them the same way: by doc id, by a relative or an
absolute path, through a symlinked folder or the folder it points to (issue 15, bug 3: `core add
link/n.md` said "not in the library" while `search --doc link/n.md` found it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_rag.domain.errors import NotFoundError
from desktop_rag.services import Services
from tests.ingest_docs import write_note


@pytest.fixture
def linked(fake_context: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Services:
    write_note(tmp_path / "real" / "n.md", "# Note\n\nThe greenhouse opens at seven.\n")
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    services = Services(fake_context)  # type: ignore[arg-type]
    assert not services.ingest(["link"]).failed
    return services


@pytest.mark.parametrize("name", ["link/n.md", "real/n.md", "./link/../link/n.md", "link"])
def test_every_command_finds_the_document_by_any_of_its_names(linked: Services, name: str) -> None:
    (doc,) = linked.list_documents()
    absolute = str(Path(name).absolute())
    for given in (name, absolute):
        assert linked.scope_of([given]).only == {doc.doc_id}
        assert [d.doc_id for d in linked.core_add([given]).docs] == [doc.doc_id]
        assert linked.core_remove([given]).docs == ()


def test_the_doc_id_names_it_too_and_an_unknown_path_is_an_error(linked: Services) -> None:
    (doc,) = linked.list_documents()
    assert [d.doc_id for d in linked.core_add([doc.doc_id]).docs] == [doc.doc_id]
    with pytest.raises(NotFoundError, match=r"elsewhere/n\.md is not in the library"):
        linked.core_add(["elsewhere/n.md"])


def test_remove_through_the_real_folder_removes_the_linked_document(linked: Services) -> None:
    linked.remove(["real/n.md"])
    assert linked.list_documents() == []
