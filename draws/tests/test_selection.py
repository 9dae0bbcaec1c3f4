"""DRAWS.md §2's test vectors: the engine's picks are the ones an auditor computes."""

import pytest

from draws.selection import electronic_serial, raps_row

SEED = bytes(range(32))
HASH = "ab" * 32


@pytest.mark.parametrize(
    ("tickets_total", "serials"),
    [(1_000, [267, 900, 156, 980, 43]), (100_000_000, [89702267, 5209900, 52741156])],
)
def test_electronic_picks_follow_the_vectors(tickets_total, serials):
    picked = [
        electronic_serial(seed=SEED, entries_sha256=HASH, k=k, tickets_total=tickets_total)
        for k in range(1, len(serials) + 1)
    ]
    assert picked == serials


def test_rejection_sampling_draws_again_when_x_is_above_the_limit():
    assert electronic_serial(seed=SEED, entries_sha256=HASH, k=1, tickets_total=2**63 + 1) == 909781816200681921


def test_raps_pool_picks_follow_the_vectors():
    rows = [raps_row(seed=SEED, list_sha256=HASH, pool="slot", k=k, pool_size=7) for k in (1, 2, 3)]
    assert rows == [6, 7, 2]


def test_a_single_ticket_always_wins_and_nothing_cannot_be_drawn():
    assert electronic_serial(seed=SEED, entries_sha256=HASH, k=9, tickets_total=1) == 1
    with pytest.raises(ValueError):
        electronic_serial(seed=SEED, entries_sha256=HASH, k=1, tickets_total=0)
    with pytest.raises(ValueError):
        electronic_serial(seed=b"short", entries_sha256=HASH, k=1, tickets_total=10)
