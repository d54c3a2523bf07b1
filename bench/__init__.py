"""Benchmarks of the episodic core: ``python -m bench.latency``."""
