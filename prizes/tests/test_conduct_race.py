"""Two Finish clicks at once, on real concurrent connections: one computes and stores the
prizes, the other waits on the draw's row lock, then is refused and stores nothing."""

import pytest

from core.errors import DomainError
from draws.tests.builders import MANAGER
from draws.tests.test_engine_races import run_in_threads
from prizes.conduct import game_event_record, game_finish
from prizes.models import BoardGame, PrizeLine
from prizes.tests.test_conduct import REVEALS, draw_of, on_stage  # noqa: F401  (the pinned clock)

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_finishes_at_once_store_the_prizes_once(reference_data):
    _draw, (first, second) = draw_of(2, BoardGame.REVEAL, REVEALS)
    game_event_record(actor=MANAGER, pick_id=first.pk, event={"slot": "3"})
    game_event_record(actor=MANAGER, pick_id=second.pk, event={"slot": "1"})
    results = run_in_threads(
        lambda: game_finish(actor=MANAGER, pick_id=first.pk), lambda: game_finish(actor=MANAGER, pick_id=second.pk)
    )
    stored = [r for r in results if isinstance(r, list)]
    refused = [r for r in results if isinstance(r, DomainError)]
    assert len(stored) == 1 and len(refused) == 1, results
    assert "finished and its prizes recorded" in str(refused[0])
    assert PrizeLine.objects.count() == 2
