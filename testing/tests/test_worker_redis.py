"""testing/worker.py: each pytest-xdist process flushes a Redis database of its own."""

from testing.worker import redis_url_of_this_process


def test_a_suite_in_one_process_uses_the_redis_database_it_was_given():
    assert redis_url_of_this_process("redis://127.0.0.1:6379/14", None) == "redis://127.0.0.1:6379/14"


def test_each_xdist_process_gets_the_next_database():
    urls = [redis_url_of_this_process("redis://127.0.0.1:6379/10", f"gw{n}") for n in range(2)]
    assert urls == ["redis://127.0.0.1:6379/10", "redis://127.0.0.1:6379/11"]


def test_a_url_without_a_database_counts_from_zero():
    assert redis_url_of_this_process("redis://127.0.0.1:6379", "gw1") == "redis://127.0.0.1:6379/1"
