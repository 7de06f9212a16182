"""Benchmarks: `python -m bench.run NAME...` runs bench/bench_NAME.py modules (see run.py)."""
