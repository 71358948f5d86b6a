"""Algorithm classes of the provider, grouped by API."""

from __future__ import annotations


def algorithm_classes() -> list:
    """Every algorithm class the provider registers."""
    return []
