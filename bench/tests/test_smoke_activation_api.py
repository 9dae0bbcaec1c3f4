"""bench/activation_api.py at a tiny size (issue 17, item 5): a renamed service breaks this test,
not the next measurement. No timing is asserted; the script checks its own serials."""

import pytest


@pytest.mark.slow
def test_the_activation_bench_runs_at_a_tiny_size(run_bench, smoke_database):
    with smoke_database("promodesk_smoke_activation_api") as url:
        run_bench("fill.py", "--members", "1000", "--points", "10000", url=url)
        out = run_bench(
            "activation_api.py", "--configs", "nginx:gthread1x2c4", "--clients", "4", "--seconds", "1",
            "--max-requests", "40", "--warm-up", "4", "--in-process", "20", "--paced", "20",
            "--paced-seconds", "0.5", url=url,
        ).stdout  # fmt: skip
    for line in (
        # compose's deploy/nginx.conf in front of gunicorn, each worker capped at 4 connections
        "nginx -> gthread, 1 workers x 2 threads, at most 4 connections each",
        "nginx in front",
        "activation_create, in process, one at a time",
        "SQL statements",
        "Draw row lock held: median",
        "GET members/{card}/draws through the test client",
        "baseline GET login page",
        "write POST activations",
        "read GET members/{card}/draws",
        "Verified: one activation per 201 response",
        "in 3 alternated rounds",
        # open load at 20 requests a second, latency from each request's due time
        "paced POST activations 20/s",
        "paced GET members/{card}/draws 20/s",
        "open loop; latency from each request's due time",
    ):
        assert line in out, f"{line!r} not printed"
    # Each measured phase against the login page round by round (Result.round_ratios).
    assert out.count("(rounds: ") == 2, out
    # Each 32-client phase (4 here) prints its clients' medians: the spread of keep-alive pinning;
    # the paced ones too.
    assert out.count("clients' p50 ") == 7, out
    assert out.count("at this load") == 2, out
