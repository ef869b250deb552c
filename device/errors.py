"""Errors of the device side, named by area and problem in the style of gpiozero."""

from __future__ import annotations


class CompanionError(Exception):
    """Base of the device-side errors; the CLI prints their message as one line and exits 2."""


class UsageError(CompanionError, ValueError):
    """The user asked for something that cannot be done as asked (bad argument, bad file)."""


class ConfigError(UsageError):
    """The configuration file is missing, is not TOML, or has an unknown key or a value of the wrong type."""


class CameraError(CompanionError, OSError):
    """A frame source cannot be opened or stopped giving frames (unplugged, busy, unknown source)."""


class StorageError(CompanionError, OSError):
    """The event log cannot be opened or written (state directory missing, disk full, corrupt database)."""


class PanelError(CompanionError, OSError):
    """The GPIO panel cannot be set up (no pin factory, pin busy, mock asked for but not configured)."""


class SessionError(UsageError):
    """A request the game session cannot carry out now (no game running, nothing to undo, bad correction)."""


class RecordingError(UsageError):
    """A recording folder is missing, incomplete or its JSON does not describe its frames."""
