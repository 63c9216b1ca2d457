"""Command-line entry points: argument parsing only; the work lives in the library."""
