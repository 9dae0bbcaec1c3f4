class DomainError(Exception):
    """A rule refused the action. `message` is written for the desk clerk who reads it;
    `code` is stable, for API clients and tests."""

    def __init__(self, message: str, *, code: str = "refused") -> None:
        super().__init__(message)
        self.message = message
        self.code = code
