"""desktop_rag: chat with your own documents, offline."""

__version__ = "0.1.0"
