"""Stands in for pandas when tests/python/check-python.sh runs the unit tests
without it: first on PYTHONPATH, it makes `import pandas` fail as on a system
without python3-pandas."""
raise ImportError("pandas is hidden for this test run (tests/python/no_pandas)")
