"""The one root exception of the project.

>>> try:
...     raise ConfigError("pin 99 does not exist")
... except MesaError as e:
...     print(e)
pin 99 does not exist
"""


class MesaError(Exception):
    """Root of every error Mesa raises on purpose."""


class ConfigError(MesaError):
    """A setting or configuration file is invalid."""


class RuleError(MesaError):
    """An action the rules forbid. ``code`` is stable, ``str(e)`` explains it in English."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class ReplayError(MesaError):
    """A replay file line that cannot be read."""
