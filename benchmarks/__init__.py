"""Benchmarks of agentry's own cost, each printed as a ratio to a bare-Python baseline."""
