"""Committing a draw's seed has one home (draws.seeding): the entries' freeze and each RAPS
upload go through it, and it keeps the secret while publishing its SHA-256 (DRAWS.md §1)."""

import hashlib

import pytest

from draws import seeding
from draws.models import Draw
from draws.tests.raps_fixtures import closed_session, csv_text, player, raps_series, upload

pytestmark = pytest.mark.django_db


def test_seed_commit_keeps_a_fresh_secret_and_publishes_its_hash():
    draw, other = Draw(), Draw()
    published = seeding.seed_commit(draw)
    seeding.seed_commit(other)
    assert len(draw.seed_hex) == 64 and published == draw.seed_sha256
    assert draw.seed_sha256 == hashlib.sha256(bytes.fromhex(draw.seed_hex)).hexdigest()
    assert other.seed_hex != draw.seed_hex


def test_the_freeze_and_a_raps_upload_commit_their_seed_through_seed_commit(monkeypatch, reference_data):
    committed = []

    def spy(draw):
        committed.append(draw.pk)
        return seeding.seed_commit(draw)

    monkeypatch.setattr("draws.services.seed_commit", spy)
    monkeypatch.setattr("draws.raps.seed_commit", spy)
    session = closed_session(raps_series(winners=2))  # the tick froze its (empty) entries: the first seed
    player("8000000001")
    player("8000000002")
    upload(session, csv_text("8000000001,slot,9,100", "8000000002,table,BJ3,100"), slot_quota=1, table_quota=1)
    assert committed == [session.pk, session.pk]
    stored = Draw.objects.get(pk=session.pk)
    assert stored.seed_sha256 == hashlib.sha256(bytes.fromhex(stored.seed_hex)).hexdigest()
