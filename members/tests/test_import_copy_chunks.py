"""A plain file's staging lines go to COPY in chunks (a transaction each) sent a piece at a time
(members.imports.copy_chunks): the server takes in one piece while Python reads the next."""

from members import imports
from members.imports import copy_chunks


def _lines(count: int, pulled: list[int]):
    for n in range(count):
        pulled.append(n)
        yield b"%d\n" % n


def test_chunks_end_at_chunk_rows_and_come_in_pieces_of_piece_rows(monkeypatch):
    monkeypatch.setattr(imports, "CHUNK_ROWS", 5)
    monkeypatch.setattr(imports, "_PIECE_ROWS", 2)
    pulled: list[int] = []
    chunks = [list(chunk) for chunk in copy_chunks(_lines(12, pulled))]
    assert chunks == [
        [b"0\n1\n", b"2\n3\n", b"4\n"],
        [b"5\n6\n", b"7\n8\n", b"9\n"],
        [b"10\n11\n"],
    ]
    assert pulled == list(range(12))


def test_a_chunk_of_long_lines_ends_at_chunk_chars(monkeypatch):
    monkeypatch.setattr(imports, "CHUNK_CHARS", 10)
    lines = iter([b"a" * 6, b"b" * 6, b"c" * 3, b"d" * 20, b"e"])
    assert [b"".join(chunk) for chunk in copy_chunks(lines)] == [b"a" * 6 + b"b" * 6, b"c" * 3 + b"d" * 20, b"e"]


def test_a_chunk_reads_the_file_only_as_far_as_its_copy_has_taken(monkeypatch):
    """Memory stays a piece, and the rows counted when a chunk commits are that chunk's."""
    monkeypatch.setattr(imports, "CHUNK_ROWS", 4)
    monkeypatch.setattr(imports, "_PIECE_ROWS", 2)
    pulled: list[int] = []
    chunk = next(copy_chunks(_lines(10, pulled)))
    assert next(chunk) == b"0\n1\n" and pulled == [0, 1]
    assert list(chunk) == [b"2\n3\n"] and pulled == [0, 1, 2, 3]


def test_no_lines_no_chunk():
    assert list(copy_chunks(iter([]))) == []
