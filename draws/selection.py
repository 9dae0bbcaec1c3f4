"""Which serial (or RAPS row) pick k selects: DRAWS.md §2 and §5, to the bit.

Pure functions of the committed seed, the entry-list hash and k, with no database: the draw
engine, the verifier and an auditor's own re-implementation all compute the same numbers.
"""

import hashlib
import hmac

_TWO_64 = 1 << 64


def _pick(seed: bytes, prefix: str, n: int) -> int:
    """The first x = HMAC-SHA256(seed, prefix + str(c))[0:8] below the largest multiple of n
    under 2^64 (rejection sampling: no modulo bias), as a number in 1..n."""
    if len(seed) != 32:
        raise ValueError("The seed is 32 bytes.")
    if n < 1:
        raise ValueError("There is nothing to draw from.")
    limit = _TWO_64 - (_TWO_64 % n)
    c = 0
    while True:
        digest = hmac.new(seed, f"{prefix}{c}".encode("ascii"), hashlib.sha256).digest()
        x = int.from_bytes(digest[0:8], "big")
        if x < limit:
            return (x % n) + 1
        c += 1


def electronic_serial(*, seed: bytes, entries_sha256: str, k: int, tickets_total: int) -> int:
    """The serial (1..tickets_total) of electronic pick k (DRAWS.md §2)."""
    return _pick(seed, f"{entries_sha256}:{k}:", tickets_total)


def raps_row(*, seed: bytes, list_sha256: str, pool: str, k: int, pool_size: int) -> int:
    """The row number (1..pool_size, in canonical order within the pool) of pick k of a RAPS
    pool (DRAWS.md §5); k counts per pool."""
    return _pick(seed, f"{list_sha256}:{pool}:{k}:", pool_size)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
