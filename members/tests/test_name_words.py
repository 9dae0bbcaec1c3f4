"""Partial-name lookup through the names' words (migration members 0019, PostgreSQL): the same
members as `search_name LIKE '%fragment%'` alone, and the words kept as members come and change."""

import datetime as dt

import pytest
from django.db import connection

from members.models import Member, Property, Tier
from members.selectors import member_lookup, members_list
from members.tests.factories import MemberFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the words are PostgreSQL's"),
]

NAMES = [
    ("Lee-Ann", "van der Merwe"),
    ("Mary Jane", "O'Brien"),
    ("Thabo", "Nkosinathi"),
    ("Anna", "Nkosi"),
    ("Per%cy", "Under_score"),
    ("Back\\slash", "Zulu"),
]
FRAGMENTS = ["lee-ann", "ee-a", "van", "der", "merwe", "mary", "jane", "o'br", "nkosi", "osi", "thab", "ann"]
FRAGMENTS += ["per%cy", "r%c", "under_score", "r_s", "n_e", "k\\sl", "zul", "van der", "mary jane nkosi", "ary ane"]


def _words() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT word FROM members_name_word")
        return {word for (word,) in cursor.fetchall()}


def test_the_words_find_the_members_that_like_alone_finds(reference_data):
    members = [MemberFactory(first_name=first, last_name=last) for first, last in NAMES]
    for query in FRAGMENTS:
        expected = set(Member.objects.all())
        for word in query.split():
            expected &= set(Member.objects.filter(search_name__contains=word))
        found = member_lookup(query).members
        assert set(found) == expected, query
        assert set(members_list(query=query).members) == expected, query
    assert {m.pk for m in member_lookup("ann").members} == {members[0].pk, members[3].pk}
    assert member_lookup("r%c").members == [members[4]]  # % and _ are letters here, not wildcards
    assert member_lookup("n_e").members == []  # "nde" of "under" would match a wildcard


def test_the_words_of_members_inserted_at_once_are_kept(reference_data):
    """One INSERT of many rows (as an import's): the statement trigger adds each new word once."""
    tier, home = Tier.objects.first(), Property.objects.first()
    first, second = (
        Member(
            card_number=f"90000000{n}",
            first_name="Ntombi",
            last_name=last,
            search_name=f"ntombi {last.lower()}",
            id_number=f"A123456{n}",
            id_type="passport",
            date_of_birth=dt.date(1980, 1, 1),
            tier=tier,
            home_property=home,
        )
        for n, last in enumerate(["Khoza", "Mabuza"])
    )
    Member.objects.bulk_create([first, second])
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT word, count(*) FROM members_name_word WHERE word IN ('ntombi', 'khoza', 'mabuza') GROUP BY 1"
        )
        assert dict(cursor.fetchall()) == {"ntombi": 1, "khoza": 1, "mabuza": 1}
    assert len(member_lookup("ntomb").members) == 2


def test_a_new_or_renamed_member_is_found_by_the_words_of_the_new_name(reference_data):
    member = MemberFactory(first_name="Zanele", last_name="Qwabe")
    assert {"zanele", "qwabe"} <= _words()
    member.last_name = "Xaba-Mthembu"
    member.save()
    assert "xaba-mthembu" in _words()
    assert member_lookup("mthemb").members == [member]
    assert member_lookup("qwab").members == []


def test_the_lookup_reads_the_word_index_among_many_members(reference_data):
    """The plan of a name lookup goes through the names' words, not a scan of the members."""
    MemberFactory(first_name="Sibusiso", last_name="Radebe")
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # a handful of rows: force the index's plan
        sql, params = members_list(query="busis").members.query.sql_with_params()
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "member_name_words" in plan, plan
