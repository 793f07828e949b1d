"""Helpers shared by tests and benchmarks (STYLE: never one test module importing another)."""
