"""Benchmarks run by `make bench` against the local emulator."""
