"""PyMuPDF's layout analyser (pymupdf.layout, imported by `import pymupdf`) reads ONNX models
and YAML configs from pymupdf/layout/resources at run time; its C library comes as .so files.
The static library and headers of mupdf-devel are not needed."""

from PyInstaller.utils.hooks import collect_data_files, collect_dynamic_libs

datas = collect_data_files("pymupdf", excludes=["mupdf-devel/**"])
binaries = collect_dynamic_libs("pymupdf")
