"""Run every benchmarks/bench_*.py main() in turn, or those named on the command line."""

from __future__ import annotations

import importlib
import os
import pathlib
import sys
import time

os.environ.setdefault("PROJ_DATA", "/usr/share/proj")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
HERE = pathlib.Path(__file__).parent


def main(names: list[str]) -> int:
    """Run the chosen benchmarks; return the number that raised."""
    modules = sorted(p.stem for p in HERE.glob("bench_*.py"))
    chosen = [m for m in modules if not names or any(n in m for n in names)]
    failures = 0
    for name in chosen:
        print(f"\n=== {name} ===", flush=True)
        start = time.perf_counter()
        try:
            importlib.import_module(f"benchmarks.{name}").main()
        except Exception as exc:  # noqa: BLE001 - one failing bench must not hide the others
            failures += 1
            print(f"FAILED: {type(exc).__name__}: {exc}", flush=True)
        print(f"({time.perf_counter() - start:.1f} s)", flush=True)
    return failures


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1:]) else 0)
