"""Fetches the Debian documentation PDFs used by bench_ingest.py (graphviz-doc and
libsuitesparse-doc: 74 PDFs, 887 pages) into ~/.cache/desktop-rag/bench-data/debian.

Uses `apt-get download` (needs the Debian package lists; run `apt-get update` first if it fails)
and `dpkg -x`; gunzips *.pdf.gz. Safe to run again: it does nothing when the folder is complete.

    .venv/bin/python bench/fetch_bench_data.py
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PACKAGES = ("graphviz-doc", "libsuitesparse-doc")
CACHE = Path.home() / ".cache" / "desktop-rag" / "bench-data"
TARGET = CACHE / "debian"


def download(debs: Path) -> list[Path]:
    debs.mkdir(parents=True, exist_ok=True)
    have = sorted(debs.glob("*.deb"))
    if len(have) < len(PACKAGES):
        subprocess.run(["apt-get", "download", *PACKAGES], cwd=debs, check=True)
    return sorted(debs.glob("*.deb"))


def extract_pdfs(deb: Path, target: Path) -> int:
    count = 0
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["dpkg", "-x", str(deb), tmp], check=True)
        for path in sorted(Path(tmp).rglob("*")):
            name = path.name
            if name.endswith(".pdf.gz"):
                out = target / f"{deb.name.split('_')[0]}--{name[:-3]}"
                with gzip.open(path, "rb") as src, out.open("wb") as dst:
                    shutil.copyfileobj(src, dst)
                count += 1
            elif name.endswith(".pdf") and path.is_file() and not path.is_symlink():
                shutil.copy(path, target / f"{deb.name.split('_')[0]}--{name}")
                count += 1
    return count


def main() -> int:
    if TARGET.exists() and any(TARGET.glob("*.pdf")):
        print(f"{TARGET}: {len(list(TARGET.glob('*.pdf')))} PDFs already there")
        return 0
    tmp_target = TARGET.with_name("debian.partial")
    shutil.rmtree(tmp_target, ignore_errors=True)
    tmp_target.mkdir(parents=True)
    total = sum(extract_pdfs(deb, tmp_target) for deb in download(CACHE / "debs"))
    tmp_target.rename(TARGET)
    print(f"{TARGET}: {total} PDFs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
