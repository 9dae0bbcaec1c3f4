"""Partial-name lookup through the names' words, not a trigram index on every member (issue 17, item 3).

The trigram GIN index on members_member.search_name (migration 0002) took about 16 entries a
member: a third of a 100,000-row import's insert. The desk's lookup (members.selectors) looks
for each typed word, a fragment without a space, anywhere in "first last"; such a fragment lies
inside one space-separated word of the name, so the same members are found through:

- members_name_word: every word that a member's search_name has had (a few thousand rows, not
  one a member), with the trigram index: the words containing a fragment are found there;
- member_name_words: a GIN index on the name's words (string_to_array(search_name, ' '): 2-3
  entries a member), which finds the members having one of those words.

The lookup still checks `search_name LIKE '%fragment%'` on what it finds, so the words only
narrow the search and the matches are exactly those of before. A word is added by triggers on
members_member: a statement trigger for inserts (an import's rows at once, through the
transition table), a row trigger for a change of name. Words of deleted or renamed members
stay (a few more words to look at, never a wrong match). No unique constraint on the word: two
sign-ups at once with the same new word would otherwise wait for each other's COMMIT; a word
stored twice is harmless.
"""

from django.db import migrations

from core.migration_sql import postgresql_only

WORDS = r"""
CREATE TABLE @schema@.members_name_word (word text NOT NULL);
INSERT INTO @schema@.members_name_word (word)
    SELECT DISTINCT w FROM @schema@.members_member m, unnest(string_to_array(m.search_name, ' ')) w WHERE w <> '';
CREATE INDEX members_name_word_word ON @schema@.members_name_word (word);
CREATE INDEX members_name_word_trgm ON @schema@.members_name_word USING gin (word gin_trgm_ops);
CREATE INDEX member_name_words ON @schema@.members_member USING gin (string_to_array(search_name, ' '));
DROP INDEX IF EXISTS @schema@.member_search_name_trgm;
-- The planner's statistics of the words (an expression index's are gathered with its table's).
ANALYZE @schema@.members_name_word;
ANALYZE @schema@.members_member;

CREATE FUNCTION @schema@.members_name_words_add() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
BEGIN
    INSERT INTO @schema@.members_name_word (word)
    SELECT DISTINCT w FROM new_rows n, unnest(string_to_array(n.search_name, ' ')) w
     WHERE w <> '' AND NOT EXISTS (SELECT FROM @schema@.members_name_word k WHERE k.word = w);
    RETURN NULL;
END $$;

CREATE TRIGGER members_name_words_insert AFTER INSERT ON @schema@.members_member
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION @schema@.members_name_words_add();
-- A change of name (the desk's correction): one row at a time, only when the name changed.
CREATE FUNCTION @schema@.members_name_words_renamed() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
BEGIN
    INSERT INTO @schema@.members_name_word (word)
    SELECT DISTINCT w FROM unnest(string_to_array(NEW.search_name, ' ')) w
     WHERE w <> '' AND NOT EXISTS (SELECT FROM @schema@.members_name_word k WHERE k.word = w);
    RETURN NULL;
END $$;
CREATE TRIGGER members_name_words_update AFTER UPDATE OF search_name ON @schema@.members_member
    FOR EACH ROW WHEN (OLD.search_name IS DISTINCT FROM NEW.search_name)
    EXECUTE FUNCTION @schema@.members_name_words_renamed();
"""

WORDS_REVERSE = r"""
DROP TRIGGER members_name_words_update ON @schema@.members_member;
DROP FUNCTION @schema@.members_name_words_renamed();
DROP TRIGGER members_name_words_insert ON @schema@.members_member;
DROP FUNCTION @schema@.members_name_words_add();
CREATE INDEX IF NOT EXISTS member_search_name_trgm ON @schema@.members_member USING gin (search_name gin_trgm_ops);
DROP INDEX @schema@.member_name_words;
DROP TABLE @schema@.members_name_word;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("members", "0018_points_ledger_by_month"),
    ]

    operations = [postgresql_only(WORDS, WORDS_REVERSE, in_schema=True)]
