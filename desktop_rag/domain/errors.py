"""One typed error hierarchy. Every error carries a user-facing message and a hint."""

from __future__ import annotations


class DesktopRagError(Exception):
    """Base class: `message` is shown to the user, `hint` says what to do about it."""

    exit_code = 1

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class ConfigError(DesktopRagError):
    """Invalid settings or command-line usage."""

    exit_code = 2


class ModelNotFoundError(DesktopRagError):
    """A model file or package is missing."""

    exit_code = 2


class ModelIntegrityError(DesktopRagError):
    """A model file does not match its expected size or hash."""


class DownloadError(DesktopRagError):
    """An opt-in download failed."""


class LibraryInUseError(DesktopRagError):
    """Another process is writing the same library."""


class StoreError(DesktopRagError):
    """The library's storage is damaged or unavailable."""


class CancelledError(DesktopRagError):
    """The user cancelled the operation."""

    def __init__(self, message: str = "Cancelled", hint: str = "") -> None:
        super().__init__(message, hint)


class LLMError(DesktopRagError):
    """The language model failed to load or generate."""


class CoreTooLargeError(DesktopRagError):
    """The pinned core does not fit its token budget."""


class NotFoundError(DesktopRagError):
    """A document, chat or other object does not exist."""
