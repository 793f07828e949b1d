"""The hardening suites of issue 7: hostile archives, upstream faults, integrity, concurrency, crashes."""
