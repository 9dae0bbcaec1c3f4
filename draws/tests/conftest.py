"""Fixtures of the draws tests."""

import pytest

from core.audit import Actor
from draws.models import Draw
from draws.seeds import load_promotion
from draws.tests.builders import sast
from draws.tests.raps_fixtures import closed_session, floor_players


@pytest.fixture
def seed(reference_data):
    """Load one seed promotion (a module of draws/seeds); returns a finder for its draws by
    series code and Johannesburg time."""

    def load(module):
        promotion, added = load_promotion(module.PROMOTION, actor=Actor.system("test"))
        assert added == sum(len(s.draws) for s in module.PROMOTION.series)

        def draw(series_code: str, *when) -> Draw:
            return Draw.objects.get(series__promotion=promotion, series__code=series_code, scheduled_at=sast(*when))

        return draw

    return load


@pytest.fixture
def session(reference_data):
    """A closed RAPS session waiting for its active-player list (draws/tests/raps_fixtures.py)."""
    return closed_session()


@pytest.fixture
def floor(reference_data):
    """Players on the floor for a RAPS list."""
    return floor_players()
