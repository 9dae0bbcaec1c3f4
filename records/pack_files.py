"""What goes into a promotion's record pack, file by file, each written into the ZIP as it is made
(records.packs runs the build). Every file's SHA-256 and size are taken from the bytes as they
pass into the ZIP, so the manifest describes exactly what was written. The entry lists are copied
from draws.record's database cursor in chunks: a draw of a million activations never sits in
memory whole."""

import csv
import hashlib
import io
import json
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from django.utils import timezone

from core.audit import text_sha256
from core.formats import mask_id_number
from core.models import AuditEvent
from draws.certificate import certificate_pdf
from draws.models import WINNING_OUTCOMES, Draw, DrawStatus
from draws.record import entries_chunks, record_file_names, record_json
from prizes.letter_models import LetterStatus
from prizes.models import PrizeLine
from promotions.models import Promotion
from proxies.models import DeclineRegistration, ProxyNomination

CSV_ROWS_PER_CHUNK = 500
# Draws whose entries are frozen have a record and a certificate; scheduled and cancelled ones
# are listed in draws.csv only (nothing was drawn on them).
RECORDED_STATUSES = (DrawStatus.CLOSED, DrawStatus.RUNNING, DrawStatus.DRAWN)
TERMS_ACTIONS = ("promotion.created", "promotion.updated")


@dataclass
class PackFile:
    path: str
    sha256: str
    size: int


@dataclass
class PackZip:
    """A ZIP being written, keeping each file's digest and size for the manifest."""

    archive: zipfile.ZipFile
    files: list[PackFile] = field(default_factory=list)

    def write(self, path: str, chunks: Iterable[bytes]) -> PackFile:
        digest, size = hashlib.sha256(), 0
        with self.archive.open(path, "w", force_zip64=True) as out:
            for chunk in chunks:
                out.write(chunk)
                digest.update(chunk)
                size += len(chunk)
        written = PackFile(path, digest.hexdigest(), size)
        self.files.append(written)
        return written


def _when(moment) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M:%S") if moment else ""


def csv_chunks(header: list[str], rows: Iterable[list]) -> Iterator[bytes]:
    """UTF-8 CSV in chunks of CSV_ROWS_PER_CHUNK rows. Values are written as they are, not made
    spreadsheet-safe: this is the record, and its bytes must be what the database holds."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for number, row in enumerate(rows, 1):
        writer.writerow(row)
        if number % CSV_ROWS_PER_CHUNK == 0:
            yield buffer.getvalue().encode("utf-8")
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue().encode("utf-8")


# --- The rules ------------------------------------------------------------------------------


def rules_as_published(promotion: Promotion) -> dict:
    """The terms' digest, and the digest the audit log recorded when the terms were last set:
    they agree unless the text was changed outside the application."""
    sha256 = text_sha256(promotion.rules_text)
    event = (
        AuditEvent.objects.filter(
            object_type="promotions.promotion", object_id=str(promotion.pk), action__in=TERMS_ACTIONS
        )
        .order_by("-id")
        .only("id", "action", "created_at", "data")
        .first()
    )
    recorded = ((event.data or {}).get("terms") or {}).get("sha256") if event else None
    return {
        "promotion": promotion.code,
        "file": "rules/rules.txt",
        "sha256": sha256,
        "audit_log": {"event_id": event.pk, "at": _when(event.created_at), "sha256": recorded} if event else None,
        "matches_audit_log": recorded == sha256,
    }


def write_rules(pack: PackZip, promotion: Promotion) -> dict:
    pack.write("rules/rules.txt", [promotion.rules_text.encode("utf-8", "surrogatepass")])
    rules = rules_as_published(promotion)
    pack.write("rules/rules.json", [(json.dumps(rules, indent=2) + "\n").encode("utf-8")])
    return rules


# --- Draws ----------------------------------------------------------------------------------


def promotion_draws(promotion: Promotion) -> list[Draw]:
    return list(Draw.objects.with_related().filter(series__promotion=promotion).order_by("scheduled_at", "pk"))


def recorded(draw: Draw) -> bool:
    return draw.status in RECORDED_STATUSES


def draw_folder(draw: Draw) -> str:
    return f"draws/draw-{draw.pk}/"


def write_draw(pack: PackZip, draw: Draw) -> None:
    """The draw's certificate and its two §6 files, under draws/draw-<id>/."""
    folder = draw_folder(draw)
    names = record_file_names(draw)
    pack.write(folder + "certificate.pdf", [certificate_pdf(draw)])
    pack.write(folder + names.json_name, [record_json(draw)])
    pack.write(folder + names.entries_name, entries_chunks(draw))


DRAWS_HEADER = [
    "draw_id", "draw", "series", "property", "scheduled_at", "method", "status", "started_at", "completed_at",
    "entries", "tickets", "entries_sha256", "seed_sha256", "winners", "cancelled_or_moved_because", "files",
]  # fmt: skip


def write_draws_list(pack: PackZip, draws: list[Draw]) -> None:
    winners = dict.fromkeys((d.pk for d in draws), 0)
    for pick_draw in _winning_picks(draws).values_list("draw_id", flat=True):
        winners[pick_draw] += 1
    rows = (
        [
            d.pk, d.name, d.series.name, d.property.code, _when(d.scheduled_at), d.method, d.get_status_display(),
            _when(d.started_at), _when(d.completed_at), d.entries_count, d.tickets_total, d.entries_sha256,
            d.seed_sha256, winners[d.pk], d.change_reason, draw_folder(d) if recorded(d) else "",
        ]
        for d in draws
    )  # fmt: skip
    pack.write("draws/draws.csv", csv_chunks(DRAWS_HEADER, rows))


def _winning_picks(draws: list[Draw]):
    from draws.models import DrawPick

    return DrawPick.objects.filter(draw__in=[d.pk for d in draws], outcome__in=WINNING_OUTCOMES)


# --- Winners and what they received -----------------------------------------------------------


def settlement(line: PrizeLine) -> tuple[str, str, str, str]:
    """How a prize line ended: (in words, letter number, when, by whom)."""
    payout = getattr(line, "payout", None)
    if payout is not None:
        where = "at the cash desk" if payout.where == "cash_desk" else "at the device"
        number = payout.letter.number if payout.letter_id else ""
        return f"Paid {where}", number, _when(payout.paid_at), payout.paid_by
    letters = sorted((ll.letter for ll in line.letter_lines.all()), key=lambda letter: letter.issued_at)
    if line.kind not in ("cash", "play", "vehicle", "other"):
        return "Not paid in money: carried into a later draw", "", "", ""
    if line.source == "reversal" or hasattr(line, "reversed_by"):
        return "Corrected by a reversing line", "", "", ""
    if not letters:
        return "No prize letter issued yet", "", "", ""
    last = letters[-1]
    if last.status == LetterStatus.EXPIRED:
        return "Expired: not collected in time", last.number, _when(last.status_changed_at), ""
    if last.status == LetterStatus.VOIDED:
        return f"Letter voided: {last.void_reason}", last.number, _when(last.voided_at), last.voided_by
    if last.status == LetterStatus.ISSUED:
        return f"Letter issued, to be collected by {last.last_day():%Y-%m-%d}", last.number, _when(last.issued_at), ""
    return last.get_status_display(), last.number, _when(last.status_changed_at), ""


WINNERS_HEADER = [
    "draw_id", "draw", "scheduled_at", "property", "k", "pool", "outcome", "card_number", "member",
    "id_number", "line_id", "kind", "amount_cents", "amount", "what", "source", "reverses_line",
    "settled", "letter", "settled_at", "settled_by", "amount_paid_cents",
]  # fmt: skip


def winner_rows(draws: list[Draw]) -> Iterator[list]:
    """One row per prize line of each winner, or one row for a winner without a line; draw by
    draw, so only one draw's winners are in memory at a time."""
    from core.formats import rand_cents

    for draw in draws:
        picks = _winning_picks([draw]).select_related("member").order_by("seq")
        lines = (
            PrizeLine.objects.filter(draw=draw)
            .select_related("payout", "payout__letter", "reversed_by")
            .prefetch_related("letter_lines__letter")
            .order_by("pk")
        )
        by_pick: dict[int, list[PrizeLine]] = {}
        for line in lines:
            by_pick.setdefault(line.pick_id, []).append(line)
        for pick in picks:
            member = pick.member
            head = [
                draw.pk, draw.name, _when(draw.scheduled_at), draw.property.code, pick.k, pick.pool,
                pick.get_outcome_display(), pick.card_number, member.full_name, mask_id_number(member.id_number),
            ]  # fmt: skip
            for line in by_pick.get(pick.pk) or [None]:
                if line is None:
                    yield [*head, *[""] * (len(WINNERS_HEADER) - len(head))]
                    continue
                words, letter, at, by = settlement(line)
                payout = getattr(line, "payout", None)
                yield [
                    *head, line.pk, line.get_kind_display(), line.amount_cents, rand_cents(line.amount_cents),
                    line.words, line.source, line.reverses_id or "", words, letter, at, by,
                    payout.amount_cents if payout else "",
                ]  # fmt: skip


def write_winners(pack: PackZip, draws: list[Draw]) -> None:
    pack.write("winners/prize-lines.csv", csv_chunks(WINNERS_HEADER, winner_rows(draws)))


# --- The registers --------------------------------------------------------------------------

PROXIES_HEADER = [
    "draw_id", "draw", "scheduled_at", "participant_card", "participant", "nominee", "nominee_id_type",
    "nominee_id_number", "nominee_card", "registered_at", "registered_by", "revoked_at", "revoked_by",
    "revoke_reason",
]  # fmt: skip
DECLINES_HEADER = [
    "draw_id", "draw", "scheduled_at", "card_number", "member", "registered_at", "registered_by", "revoked_at",
    "revoked_by", "revoke_reason",
]  # fmt: skip


def _username(user) -> str:
    return user.get_username() if user else ""


def proxy_rows(promotion: Promotion) -> Iterator[list]:
    rows = (
        ProxyNomination.objects.filter(draw__series__promotion=promotion)
        .select_related("draw", "participant", "nominee_member", "registered_by", "revoked_by")
        .order_by("draw__scheduled_at", "draw_id", "registered_at", "pk")
    )
    for n in rows.iterator(chunk_size=2000):
        yield [
            n.draw_id, n.draw.name, _when(n.draw.scheduled_at), n.participant.card_number, n.participant.full_name,
            n.nominee_name, n.get_nominee_id_type_display(), n.masked_nominee_id,
            n.nominee_member.card_number if n.nominee_member else "", _when(n.registered_at),
            _username(n.registered_by), _when(n.revoked_at), _username(n.revoked_by), n.revoke_reason,
        ]  # fmt: skip


def decline_rows(promotion: Promotion) -> Iterator[list]:
    rows = (
        DeclineRegistration.objects.filter(draw__series__promotion=promotion)
        .select_related("draw", "member", "registered_by", "revoked_by")
        .order_by("draw__scheduled_at", "draw_id", "registered_at", "pk")
    )
    for d in rows.iterator(chunk_size=2000):
        yield [
            d.draw_id, d.draw.name, _when(d.draw.scheduled_at), d.member.card_number, d.member.full_name,
            _when(d.registered_at), _username(d.registered_by), _when(d.revoked_at), _username(d.revoked_by),
            d.revoke_reason,
        ]  # fmt: skip


def write_registers(pack: PackZip, promotion: Promotion) -> None:
    pack.write("registers/proxies.csv", csv_chunks(PROXIES_HEADER, proxy_rows(promotion)))
    pack.write("registers/declines.csv", csv_chunks(DECLINES_HEADER, decline_rows(promotion)))


# --- The manifest ---------------------------------------------------------------------------


def manifest_json(promotion: Promotion, files: list[PackFile], *, built_at, seal) -> bytes:
    """Every file of the pack but the manifests, with its SHA-256 and size (the pack's digest
    is this file's SHA-256)."""
    document = {
        "format": 1,
        "promotion": {
            "id": promotion.pk,
            "code": promotion.code,
            "name": promotion.name,
            "starts_on": promotion.starts_on.isoformat(),
            "ends_on": promotion.ends_on.isoformat(),
            "properties": sorted(p.code for p in promotion.properties.all()),
        },
        "built_at": timezone.localtime(built_at).isoformat(),
        "audit_seal": {"day": seal.day.isoformat(), "digest": seal.digest} if seal else None,
        "files": [{"path": f.path, "sha256": f.sha256, "bytes": f.size} for f in files],
    }
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def manifest_txt(files: list[PackFile]) -> bytes:
    """`sha256sum -c manifest.txt` checks every file, manifest.json included."""
    return "".join(f"{f.sha256}  {f.path}\n" for f in files).encode("utf-8")
