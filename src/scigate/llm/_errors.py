"""The model layer's own error."""

from __future__ import annotations

from scigate.errors import ScigateError


class ModelError(ScigateError):
    """A model call that failed (after the retries its error allowed)."""

    def __init__(self, message: str, *, spec: str = "", attempts: int = 1) -> None:
        super().__init__(message)
        self.spec = spec
        self.attempts = attempts
