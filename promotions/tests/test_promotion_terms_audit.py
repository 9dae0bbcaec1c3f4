"""A promotion's terms text cannot change without a trace: the audit event keeps the SHA-256
of the text in force and, for a change, both digests and what changed."""

import datetime as dt
import hashlib

from core.audit import Actor
from core.models import AuditEvent
from promotions.models import Promotion
from promotions.services import promotion_save

TERMS = "1. Members earn one ticket per 100 points.\n2. Draws at 13h00.\n3. Winners must be present.\n"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def save(promotion, reference_data):
    return promotion_save(
        actor=Actor.system("test"), promotion=promotion, properties=[reference_data["properties"]["GRC"]]
    )


def new_promotion(reference_data) -> Promotion:
    promotion = Promotion(
        code="terms", name="Terms test", starts_on=dt.date(2027, 1, 1), ends_on=dt.date(2027, 6, 30), rules_text=TERMS
    )
    return save(promotion, reference_data)


def test_creating_a_promotion_records_the_digest_of_its_terms(reference_data):
    promotion = new_promotion(reference_data)
    event = AuditEvent.objects.get(action="promotion.created", object_id=str(promotion.pk))
    assert event.data["terms"] == {"sha256": sha(TERMS)}


def test_changing_the_terms_records_both_digests_and_the_changed_lines(reference_data):
    promotion = new_promotion(reference_data)
    promotion.rules_text = TERMS.replace("Draws at 13h00.", "Draws at 15h00.")
    save(promotion, reference_data)
    terms = AuditEvent.objects.get(action="promotion.updated").data["terms"]
    assert terms["sha256"] == sha(promotion.rules_text)
    change = terms["change"]
    assert (change["sha256_before"], change["sha256_after"]) == (sha(TERMS), sha(promotion.rules_text))
    assert "-2. Draws at 13h00.\n+2. Draws at 15h00.\n" in change["diff"]
    assert "Winners must be present" in change["diff"]  # one line of context
    assert change["diff_truncated"] is False


def test_saving_without_touching_the_terms_records_no_change(reference_data):
    promotion = new_promotion(reference_data)
    promotion.name = "Renamed"
    save(promotion, reference_data)
    assert AuditEvent.objects.get(action="promotion.updated").data["terms"] == {"sha256": sha(TERMS)}


def test_a_rewritten_rule_book_is_summarised_not_copied_whole(reference_data):
    promotion = new_promotion(reference_data)
    promotion.rules_text = "".join(f"Clause {n}: something else entirely.\n" for n in range(5000))
    save(promotion, reference_data)
    change = AuditEvent.objects.get(action="promotion.updated").data["terms"]["change"]
    assert len(change["diff"]) == 4000 and change["diff_truncated"] is True
    assert change["sha256_after"] == sha(promotion.rules_text)
