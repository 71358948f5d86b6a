"""Pytest fixtures: a shared emulator (reset before each test) and a factory for more."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from emulator.testing import EmulatorHandle, start_emulator


@pytest.fixture(scope="session")
def emulator_session() -> Iterator[EmulatorHandle]:
    """One emulator for the whole test session."""
    with start_emulator() as handle:
        yield handle


@pytest.fixture
def emulator(emulator_session: EmulatorHandle) -> EmulatorHandle:
    """The session emulator with log, balance, bursts, knobs and fault stream restored.

    The reset waits (bounded) for requests of the previous test still in flight, so their
    late answers cannot be logged or charged in this test.
    """
    emulator_session.reset(config=True)
    return emulator_session


@pytest.fixture
def emulator_factory() -> Iterator[Callable[..., EmulatorHandle]]:
    """Start extra emulators with custom knobs; they stop at the end of the test."""
    with contextlib.ExitStack() as stack:

        def make(**knobs: Any) -> EmulatorHandle:
            """Start one more emulator with these knobs."""
            return stack.enter_context(start_emulator(**knobs))

        yield make
