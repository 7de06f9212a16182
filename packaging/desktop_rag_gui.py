"""PyInstaller entry point for the GUI (`desktop-rag-gui`)."""

import sys

from desktop_rag.gui.app import main

if __name__ == "__main__":
    sys.exit(main())
