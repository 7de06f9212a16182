"""chromadb picks its API, telemetry, auth and segment implementations from dotted names in
its settings (`chromadb.config`), so static analysis cannot see them: collect every submodule
except the test suite and the server CLI, plus its data files and the Rust bindings."""

from PyInstaller.utils.hooks import collect_data_files, collect_submodules, copy_metadata


def _wanted(name: str) -> bool:
    return not any(part in name.split(".") for part in ("test", "cli", "server"))


hiddenimports = [*collect_submodules("chromadb", filter=_wanted), "chromadb_rust_bindings"]
datas = collect_data_files("chromadb", excludes=["**/test/**"]) + copy_metadata("chromadb")
