"""PyInstaller entry point for the GUI (`desktop-rag-gui`)."""

import multiprocessing
import sys

from desktop_rag.gui.app import main

if __name__ == "__main__":
    multiprocessing.freeze_support()  # OCR worker processes start from this executable
    sys.exit(main())
