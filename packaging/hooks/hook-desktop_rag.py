"""The app's own resources (GUI icon, desktop entry, smoke-test sample) and its lazily imported
adapters, which are only reached through imports inside functions."""

from PyInstaller.utils.hooks import collect_data_files, collect_submodules, copy_metadata

hiddenimports = collect_submodules("desktop_rag")
datas = collect_data_files("desktop_rag") + copy_metadata("desktop-rag")
