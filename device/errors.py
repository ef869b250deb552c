"""Errors of the device side, named by area and problem in the style of gpiozero."""

from __future__ import annotations


class CompanionError(Exception):
    """Base of the device-side errors; the CLI prints their message as one line and exits 2."""


class UsageError(CompanionError, ValueError):
    """The user asked for something that cannot be done as asked (bad argument, bad file)."""
