"""Committing a draw's seed (DRAWS.md §1): a fresh secret of 32 random bytes, kept on the draw
and revealed only once it is complete, and its SHA-256, published from the moment it is set.
The entries' freeze and each RAPS upload commit a seed this one way."""

import hashlib
import secrets

from draws.models import Draw


def seed_commit(draw: Draw) -> str:
    """Give `draw` a fresh secret seed and its published SHA-256 (the caller holds the draw's
    row lock and saves the draw). Returns the SHA-256."""
    seed = secrets.token_bytes(32)
    draw.seed_hex = seed.hex()
    draw.seed_sha256 = hashlib.sha256(seed).hexdigest()
    return draw.seed_sha256
