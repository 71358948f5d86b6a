"""Algorithm classes of the provider, grouped by API."""

from __future__ import annotations


def algorithm_classes() -> list:
    """Every algorithm class the provider registers."""
    from .fleet import FLEET_ALGORITHMS

    classes = list(FLEET_ALGORITHMS)
    try:
        from .street import STREET_ALGORITHMS
    except ImportError:
        STREET_ALGORITHMS = []
    return list(STREET_ALGORITHMS) + classes
