"""The benchmarks (README.md). A package only so that pytest names their smoke tests bench.tests.*."""
