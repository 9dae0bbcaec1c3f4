"""The audit log in words (issue 9, item 6): each event as a sentence a person reads ("manager
moved Thursday Queen Tier Cash draw from … to … because …"), with links to the objects it
names, and its data as "key: value" text instead of a Python dict.

Core sits below every app and never imports them (config/tests/test_layers.py): objects are
known here only by their label ("draws.draw"), their names read through the app registry, and
their pages by URL name. An app that adds an audit action adds its words to ACTIONS.
"""

import datetime as dt
import functools
import string
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.apps import apps
from django.core.exceptions import FieldDoesNotExist
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from core.formats import local_datetime
from core.models import AuditEvent
from core.swipe import mask_swipes

# --- Objects -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ObjectKind:
    """How an audited object is named and linked. `fields` are read with one query per kind
    per page; `name` builds the words from them; the link is `url` reversed with `kwarg` set
    to `url_field`'s value, shown only to a user holding `perm`."""

    label: str  # the object-type filter's choice: "Draw"
    noun: str  # for an object that is gone: "draw 12"
    fields: tuple[str, ...]
    name: Callable[[dict], str]
    url: str = ""
    kwarg: str = ""
    url_field: str = "pk"
    perm: str = ""


OBJECT_KINDS: dict[str, ObjectKind] = {
    "draws.draw": ObjectKind(
        "Draw", "draw", ("name",), lambda v: v["name"], "draws:detail", "draw_id", perm="draws.view_draw"
    ),
    "draws.activation": ObjectKind(
        "Tickets (receipt)",
        "activation",
        ("receipt_number",),
        lambda v: f"receipt {v['receipt_number']}",
        "draws:receipt",
        "activation_id",
        perm="draws.view_activation",
    ),
    "draws.devicetoken": ObjectKind("Device (eHost, app)", "device", ("name",), lambda v: f"device {v['name']}"),
    "members.member": ObjectKind(
        "Member",
        "member",
        ("first_name", "last_name", "card_number"),
        lambda v: f"{v['first_name']} {v['last_name']} ({v['card_number']})",
        "members:detail",
        "member_id",
        perm="members.view_member",
    ),
    "members.exclusion": ObjectKind(
        "Exclusion",
        "exclusion",
        ("full_name",),
        lambda v: f"the exclusion of {v['full_name']}" if v["full_name"] else f"exclusion {v['pk']}",
        "members:exclusions",
        perm="members.view_exclusion",
    ),
    "members.importjob": ObjectKind(
        "Import",
        "import",
        ("original_name",),
        lambda v: f"the import of {v['original_name']}",
        "members:import_detail",
        "job_id",
        perm="members.view_importjob",
    ),
    "members.property": ObjectKind("Property", "property", ("name",), lambda v: v["name"]),
    "members.tier": ObjectKind("Tier", "tier", ("name",), lambda v: f"the {v['name']} tier"),
    "members.staffprofile": ObjectKind(
        "Staff property", "staff property", ("user__username",), lambda v: f"the property of {v['user__username']}"
    ),
    "promotions.promotion": ObjectKind(
        "Promotion",
        "promotion",
        ("name",),
        lambda v: v["name"],
        "promotions:detail",
        "promotion_id",
        perm="promotions.view_promotion",
    ),
    "promotions.drawseries": ObjectKind(
        "Draw series",
        "series",
        ("name", "promotion_id", "promotion__name"),
        lambda v: f"{v['name']} ({v['promotion__name']})",
        "promotions:detail",
        "promotion_id",
        url_field="promotion_id",
        perm="promotions.view_promotion",
    ),
    "proxies.proxynomination": ObjectKind(
        "Proxy nomination",
        "proxy nomination",
        ("nominee_name",),
        lambda v: f"the nomination of {v['nominee_name']}",
        "proxies:nomination",
        "nomination_id",
        perm="proxies.view_proxynomination",
    ),
    "proxies.declineregistration": ObjectKind(
        "Decline to be present",
        "decline registration",
        ("draw_id",),
        lambda v: "a decline to be present",
        "proxies:draw_register",
        "draw_id",
        url_field="draw_id",
        perm="proxies.view_declineregistration",
    ),
    "prizes.prizeboard": ObjectKind(
        "Prize board",
        "prize board",
        ("series__name", "series_id"),
        lambda v: f"the prize board of {v['series__name']}",
        "prizes:board",
        "board_id",
        perm="prizes.view_prizeboard",
    ),
    "prizes.prizeline": ObjectKind(
        "Prize line",
        "prize line",
        ("words", "draw_id"),
        lambda v: f"the prize line \u201c{v['words']}\u201d",
        "prizes:draw",
        "draw_id",
        url_field="draw_id",
        perm="prizes.view_prizeline",
    ),
    "prizes.prizeletter": ObjectKind(
        "Prize letter",
        "prize letter",
        ("number",),
        lambda v: f"prize letter {v['number']}",
        "prizes:letter",
        "letter_id",
        perm="prizes.view_prizeletter",
    ),
    "auth.user": ObjectKind("Staff account", "user", ("username",), lambda v: f"the account {v['username']}"),
}

# Data keys that hold the id of another object: named and linked like the event's own.
RELATED_KEYS = {"draw": "draws.draw"}


@dataclass(frozen=True)
class Named:
    text: str
    url: str = ""


def object_names(pairs: Iterable[tuple[str, str]], user=None) -> dict[tuple[str, str], Named]:
    """The name (and link, for a user allowed to follow it) of each (object_type, object_id):
    one query per kind. Objects since deleted, or of a kind not known here, are left out."""
    wanted: dict[str, set[int]] = defaultdict(set)
    for object_type, object_id in pairs:
        if object_type in OBJECT_KINDS and str(object_id).isascii() and str(object_id).isdigit():
            wanted[object_type].add(int(object_id))
    found = {}
    for object_type, ids in wanted.items():
        kind = OBJECT_KINDS[object_type]
        try:
            model = apps.get_model(object_type)
        except LookupError:
            continue
        may_follow = bool(kind.url) and (not kind.perm or (user is not None and user.has_perm(kind.perm)))
        for values in model._default_manager.filter(pk__in=ids).order_by().values("pk", *kind.fields):
            found[(object_type, str(values["pk"]))] = Named(kind.name(values), _url(kind, values) if may_follow else "")
    return found


def _url(kind: ObjectKind, values: dict) -> str:
    try:
        return reverse(kind.url, kwargs={kind.kwarg: values[kind.url_field]} if kind.kwarg else None)
    except NoReverseMatch:
        return ""


# --- Actions -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ActionWords:
    """`label` names the action in the filter ("Draw moved"); `says` are sentences after the
    actor, tried in order, the first whose every {key} the event has being used: {object} is
    the event's object, {draw} a draw named in the data, other keys the data's values."""

    label: str
    says: tuple[str, ...]
    derive: Callable[[dict], dict] = field(default=lambda data: {})


def _serial_count(data: dict) -> dict:
    serials = data.get("serials")
    if isinstance(serials, list) and len(serials) == 2 and all(isinstance(s, int) for s in serials):
        return {"count": serials[1] - serials[0] + 1}
    return {}


def _winner_count(data: dict) -> dict:
    return {"count": len(data["winners"])} if isinstance(data.get("winners"), list) else {}


def _playing(data: dict) -> dict:
    return {"state": "playing" if data.get("playing") else "not playing"} if "playing" in data else {}


def _words(label: str, *says: str, derive=None) -> ActionWords:
    return ActionWords(label, says, derive) if derive else ActionWords(label, says)


ACTIONS: dict[str, ActionWords] = {
    # Draws
    "draw.scheduled": _words("Draw scheduled", "scheduled {object}"),
    "draw.moved": _words(
        "Draw moved", "moved {object} from {from} to {to} because {reason}", "moved {object} to {to}", "moved {object}"
    ),
    "draw.cancelled": _words("Draw cancelled", "cancelled {object} because {reason}", "cancelled {object}"),
    "draw.entries_frozen": _words(
        "Entries frozen",
        "froze the entries of {object}: {entries} entrants, {tickets} tickets",
        "froze the entries of {object}",
    ),
    "draw.started": _words("Draw started", "started {object}"),
    "draw.witness_recorded": _words(
        "Witness recorded", "recorded {witness} as the witness of {object}", "recorded the witness of {object}"
    ),
    "draw.picked": _words(
        "Ticket picked", "picked serial {serial} (card {card_number}) in {object}", "made a pick in {object}"
    ),
    "draw.pick_outcome": _words(
        "Pick outcome recorded",
        "recorded the outcome of pick {k} (card {card_number}) in {object}",
        "recorded a pick's outcome in {object}",
    ),
    "draw.winners_wanted_raised": _words(
        "More winners wanted",
        "raised the winners wanted in {object} from {from} to {to} (a finalist already held a place)",
        "raised the winners wanted in {object}",
    ),
    "draw.serial_refused": _words(
        "Keyed serial refused", "keyed serial {keyed} in {object}, refused: {reason}", "keyed a refused serial"
    ),
    "draw.completed": _words(
        "Draw completed", "completed {object} with {count} winners", "completed {object}", derive=_winner_count
    ),
    "draw.raps_list_uploaded": _words(
        "Active-player list uploaded",
        "replaced the active-player list of {object} with {file_name} because {reason}",
        "uploaded the active-player list {file_name} for {object}",
        "uploaded an active-player list for {object}",
    ),
    "tickets.activated": _words(
        "Tickets activated",
        "activated {count} tickets for card {card_number} in {draw}",
        "activated {count} tickets for card {card_number}",
        "activated tickets ({object})",
        derive=_serial_count,
    ),
    "device.token_created": _words("Device token created", "created a token for {object} at {property}"),
    "device.revoked": _words("Device token revoked", "revoked the token of {object}"),
    "device.restored": _words("Device token restored", "restored the token of {object}"),
    # Promotions
    "promotion.created": _words("Promotion created", "created the promotion {object}"),
    "promotion.updated": _words("Promotion changed", "changed the promotion {object}"),
    "promotion.seed_loaded": _words(
        "Promotion loaded", "loaded the promotion {object} with {draws_added} draws", "loaded the promotion {object}"
    ),
    "series.created": _words("Draw series created", "created the draw series {object}"),
    "series.updated": _words("Draw series changed", "changed the draw series {object}"),
    # Proxies and declines
    "proxy.nominated": _words(
        "Proxy nominated",
        "nominated {nominee} as the proxy of card {participant} in {draw}",
        "nominated a proxy ({object})",
    ),
    "proxy.revoked": _words("Proxy revoked", "revoked {object} because {reason}", "revoked {object}"),
    "decline.registered": _words(
        "Decline to be present registered",
        "registered that card {member} declines to be present at {draw}",
        "registered a decline to be present",
    ),
    "decline.revoked": _words(
        "Decline revoked",
        "withdrew {object} with the member present (card {member}) because {reason}",
        "revoked {object} because {reason}",
        "revoked {object}",
    ),
    # Members
    "member.signed_up": _words("Member signed up", "signed up {object}"),
    "member.updated": _words("Member record changed", "changed the record of {object}"),
    "member.viewed": _words("Member viewed", "viewed {object}"),
    "member.activity_changed": _words(
        "Member playing or not", "reported {object} as {state} at {property}", derive=_playing
    ),
    "exclusion.recorded": _words("Exclusion recorded", "recorded {object}"),
    "exclusion.ended": _words("Exclusion ended", "ended {object} at {ends_at}", "ended {object}"),
    # Imports
    "import.queued": _words("Import uploaded", "uploaded {object} ({bytes} bytes)", "uploaded {object}"),
    "import.completed": _words(
        "Import completed", "completed {object}: {imported} of {rows} rows imported", "completed {object}"
    ),
    "import.rejected": _words("Import rejected", "rejected {object}: {errors} rows with errors", "rejected {object}"),
    "import.restarted": _words("Import restarted", "restarted {object} after its worker stopped"),
    "import.abandoned": _words("Import abandoned", "gave up {object} after {attempts} tries", "gave up {object}"),
    "import.file_purged": _words("Import file deleted", "deleted the file of {object}"),
    # Sign-in and staff accounts
    "auth.logged_in": _words("Signed in", "signed in"),
    "auth.logged_out": _words("Signed out", "signed out"),
    "auth.login_failed": _words("Sign-in failed", "failed to sign in as {username}", "failed to sign in"),
    "auth.locked_out": _words(
        "Locked out",
        "paused signing in as {username} from {ip} for {paused_for} after too many wrong passwords",
        "paused signing in as {username} for {paused_for} after too many wrong passwords",
        "locked out {username} after too many failed sign-ins",
    ),
    "auth.unlocked": _words(
        "Sign-in pause lifted",
        "lifted every sign-in pause of the account {username}",
        "lifted every sign-in pause of the address {ip}",
    ),
    "auth.password_changed": _words("Password changed", "changed their password"),
    "auth.password_change_failed": _words(
        "Wrong password when changing it", "gave a wrong current password when changing their password"
    ),
    "auth.password_change_paused": _words(
        "Password change paused",
        "had changing their password paused for {paused_for} after too many wrong current passwords",
    ),
    "user.created": _words("Staff account created", "created {object}"),
    "user.changed": _words("Staff account changed", "changed {object}"),
    "user.deleted": _words("Staff account deleted", "deleted the account {was}", "deleted {object}"),
    "user.groups_changed": _words("Roles changed", "changed the roles of {object}"),
    "user.permissions_changed": _words("Permissions changed", "changed the permissions of {object}"),
    "user.password_set": _words("Password set", "set the password of {object}"),
    "staff_profile.created": _words("Staff property set", "set {object}"),
    "staff_profile.changed": _words("Staff property changed", "changed {object}"),
    # Reference data
    "property.created": _words("Property created", "created the property {object}"),
    "property.changed": _words("Property changed", "changed the property {object}"),
    "property.deleted": _words("Property deleted", "deleted the property {was}", "deleted a property"),
    "tier.created": _words("Tier created", "created {object}"),
    "tier.changed": _words("Tier changed", "changed {object}"),
    "tier.deleted": _words("Tier deleted", "deleted the tier {was}", "deleted a tier"),
    # Prizes (issue 14)
    "prize.board_created": _words("Prize board created", "created {object} ({game}, {slots} prizes)"),
    "prize.board_saved": _words("Prize board changed", "changed {object}"),
    "prize.lines_stored": _words("Prizes recorded", "recorded the prizes of pick {pick} of {object}"),
    "prize.line_reversed": _words(
        "Prize line corrected", "corrected {object} of {draw} by a reversing line because {reason}"
    ),
    "prize.game_event": _words("Stage game turn recorded", "recorded pick {pick}'s turn in the game of {object}"),
    "prize.game_finished": _words("Stage game finished", "finished the game of {object}: {lines} prize lines"),
    "prize.wild_card_bin": _words("Wild card bin recorded", "recorded bin {bin} drawn by hand for {object}"),
    # Prize letters and payouts (issue 15)
    "prize.letter_issued": _words(
        "Prize letter issued", "issued {object} to card {card_number} for {draw}", "issued {object}"
    ),
    "prize.letter_voided": _words("Prize letter voided", "voided {object} because {reason}", "voided {object}"),
    "prize.letter_reissued": _words(
        "Prize letter reissued", "reissued letter {replaces} as {object} because {reason}", "reissued {object}"
    ),
    "prize.letter_expired": _words(
        "Prize letter expired", "marked {object} expired: not collected by {expires}", "marked {object} expired"
    ),
    "prize.device_payout": _words(
        "Prize paid at the device", "recorded {object} ({amount}) as paid at the device to card {card_number}"
    ),
    # Jackpots (prizes.progressives): every change names the draw that caused it.
    "progressive.created": _words("Jackpot created", "created the jackpot {object}"),
    "progressive.grow": _words("Jackpot grew", "grew {object}: {words}", "grew {object}"),
    "progressive.won": _words("Jackpot won", "paid {object}: {words}", "paid {object}"),
    "progressive.reset": _words(
        "Jackpot back to base", "put {object} back to base: {words}", "put {object} back to base"
    ),
    "progressive.share_out": _words("Jackpot shared out", "shared {object} out: {words}", "shared {object} out"),
    "progressive.set": _words("Jackpot amount set", "set {object}: {words}", "set {object}"),
    "demo.seeded": _words("Demo data loaded", "loaded the demo members ({members_added} added)"),
}

# The action filter's groups: an action's first word names its area.
AREAS = {
    "draw": "Draws",
    "tickets": "Draws",
    "device": "Draws",
    "promotion": "Promotions",
    "series": "Promotions",
    "proxy": "Proxies and declines",
    "decline": "Proxies and declines",
    "member": "Members",
    "exclusion": "Members",
    "import": "Imports",
    "auth": "Sign-in and staff",
    "user": "Sign-in and staff",
    "staff_profile": "Sign-in and staff",
    "property": "Reference data",
    "tier": "Reference data",
    "demo": "Reference data",
    "prize": "Prizes",
    "progressive": "Prizes",
}


def action_label(action: str) -> str:
    words = ACTIONS.get(action)
    if words:
        return words.label
    noun, _, verb = action.partition(".")
    return f"{noun.replace('_', ' ').capitalize()} {verb.replace('_', ' ')}".strip()


def action_choices() -> list:
    """The action filter: grouped by area, each area first offering everything of its own."""
    groups: dict[str, list] = defaultdict(list)
    for code, words in ACTIONS.items():
        groups[AREAS.get(code.partition(".")[0], "Other")].append((code, words.label))
    choices: list = [("", "Anything")]
    for area, actions in groups.items():
        every = (f"area:{area}", f"Everything in {area.lower()}")
        choices.append((area, [every, *sorted(actions, key=lambda choice: choice[1])]))
    return choices


def area_prefixes(area: str) -> list[str]:
    """The code prefixes of an area's actions ("draw.", "tickets.", "device.")."""
    return [f"{prefix}." for prefix, name in AREAS.items() if name == area]


# --- Actors --------------------------------------------------------------------------------

SYSTEM_ACTORS = {
    "tick": "The system (scheduled)",
    "import": "The import worker",
    "import_members": "The member import command",
    "import_points": "The points import command",
    "feed": "The gaming-system feed",
    "load_seed_promotions": "The promotion loader",
    "seed_demo": "The demo loader",
    "create_device_token": "The device token command",
}
DEVICE_TABLE = "draws.devicetoken"  # read through the app registry: devices belong to draws


def actor_words(label: str) -> str:
    """Who did it, for people: a user's name, a device ("eHost 3 at GRC"), or the system."""
    if label.startswith("system:"):
        return SYSTEM_ACTORS.get(label.removeprefix("system:"), "The system")
    if label.startswith("device:"):
        _, code, name = label.split(":", 2) if label.count(":") >= 2 else ("", "", label)
        return f"{name} at {code}" if code else name
    if label == "anonymous":
        return "Someone not signed in"
    return label


def device_actors() -> list[tuple[str, str]]:
    """The actor labels the API gives devices (draws.api), with their words, for the filter."""
    try:
        model = apps.get_model(DEVICE_TABLE)
    except LookupError:
        return []
    rows = model._default_manager.order_by("property__code", "name").values_list("property__code", "name")
    return [(f"device:{code}:{name}", f"{name} at {code}") for code, name in rows]


# --- Sentences and details -----------------------------------------------------------------


@dataclass(frozen=True)
class Sentence:
    html: SafeString
    text: str
    said: frozenset[str] = frozenset()  # the data keys the sentence already tells


Segment = str | Named


def describe(event: AuditEvent, names: dict[tuple[str, str], Named]) -> Sentence:
    """The event as one sentence: who did what to which object, with links."""
    predicate, said = _predicate(event, names)
    segments: list[Segment] = [actor_words(event.actor_label), " ", *predicate]
    text = "".join(s.text if isinstance(s, Named) else s for s in segments)
    end = "" if text.endswith((".", "!", "?")) else "."
    return Sentence(_html(segments, end), text + end, said)


def _predicate(event: AuditEvent, names) -> tuple[list[Segment], frozenset[str]]:
    data = event.data if isinstance(event.data, dict) else {}
    words = ACTIONS.get(event.action)
    subject = _subject(event, names)
    values: dict[str, Segment] = {"object": subject} if subject else {}
    for key, object_type in RELATED_KEYS.items():
        if key in data and data[key] is not None:
            values[key] = names.get((object_type, str(data[key]))) or Named(
                f"{OBJECT_KINDS[object_type].noun} {data[key]}"
            )
    if words:
        for key, value in {**data, **words.derive(data)}.items():
            if key not in values and value not in (None, "", [], {}):
                values[key] = _value_text(key, value, event.object_type)
        for says in words.says:
            keys = [name for _, name, _, _ in string.Formatter().parse(says) if name]
            if all(key in values for key in keys):
                return _fill(says, values), frozenset(keys) & set(data)
    fallback = [action_label(event.action).lower()]
    return fallback + ([": ", subject] if subject else []), frozenset()


def _subject(event: AuditEvent, names) -> Named | None:
    if not event.object_type:
        return None
    named = names.get((event.object_type, event.object_id))
    if named:
        return named
    kind = OBJECT_KINDS.get(event.object_type)
    noun = kind.noun if kind else event.object_type.partition(".")[2]
    return Named(f"{noun} {event.object_id}".strip())


def _fill(says: str, values: dict[str, Segment]) -> list[Segment]:
    segments: list[Segment] = []
    for literal, name, _, _ in string.Formatter().parse(says):
        if literal:
            segments.append(literal)
        if name:
            segments.append(values[name])
    return segments


def _html(segments: list[Segment], end: str) -> SafeString:
    parts = []
    for segment in segments:
        if isinstance(segment, Named) and segment.url:
            parts.append(format_html('<a href="{}">{}</a>', segment.url, segment.text))
        else:
            parts.append(format_html("{}", segment.text if isinstance(segment, Named) else segment))
    return mark_safe("".join(parts) + end)  # noqa: S308 (each part escaped by format_html)


# Data keys people read differently from their code.
KEY_LABELS = {
    "scheduled_at": "Draw time",
    "windows": "Ticket windows",
    "card_number": "Card",
    "entries_sha256": "Entry list SHA-256",
    "seed_sha256": "Seed SHA-256",
    "seed_hex": "Seed",
    "ended_short": "Ended short",
    "k": "Pick",
    "seq": "Pick number",
    "id_number_last4": "ID number ends",
    "nominee_id_last4": "Nominee ID ends",
    "changes": "Changed",
    "rule_changes": "Earning rule changed",
    "desk_tiers": "Desk tiers",
    "winners_wanted": "Winners wanted",
    "win_once": "Win once",
    "bytes": "Size (bytes)",
    "together_with": "Other draws cancelled with it",
}
DETAIL_LIMIT = 300  # characters of one value on the page; the CSV keeps it whole


def details(event: AuditEvent, *, limit: int | None = DETAIL_LIMIT, skip=frozenset()) -> list[tuple[str, str]]:
    """The event's data as (label, text) pairs: no dict or list reprs, times in Johannesburg;
    `skip` leaves out what the sentence already says."""
    data = event.data if isinstance(event.data, dict) else {"value": event.data}
    rows = []
    for key, value in data.items():
        if key in skip:
            continue
        text = _value_text(key, value, event.object_type)
        if text == "":
            continue
        if limit and len(text) > limit:
            text = text[:limit] + "…"
        rows.append((KEY_LABELS.get(key, key.replace("_", " ").capitalize()), text))
    return rows


def details_text(event: AuditEvent) -> str:
    return "; ".join(f"{label}: {text}" for label, text in details(event, limit=None))


def _value_text(key: str, value, object_type: str = "") -> str:
    """One value as text: times in Johannesburg, numbers with thousands separators (but not
    serials and ids), a stored choice in its words, lists joined, a before/after pair with an
    arrow, a dict as key: value."""
    if value is None or value == "" or value == [] or value == {}:
        return ""
    if isinstance(value, str) and (words := choice_words(object_type, key).get(value)):
        return words
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return str(value) if key in PLAIN_NUMBERS else f"{value:,}"
    if isinstance(value, str):
        return _moment_or_text(mask_swipes(value))  # an event written before swipes were masked
    if isinstance(value, list):
        if len(value) == 2 and (key == "serials" or all(_is_moment(item) for item in value)):
            return f"{_value_text('serial', value[0])} \N{EN DASH} {_value_text('serial', value[1])}"
        return ", ".join(_value_text(key, item) for item in value)
    if isinstance(value, dict):
        if set(value) == {"before", "after"}:
            return _change(value["before"], value["after"])
        parts = []
        for name, item in value.items():
            if key in ("changes", "rule_changes") and isinstance(item, list) and len(item) == 2:
                text = _change(item[0], item[1])
            else:
                text = _value_text(name, item)
            parts.append(f"{name.replace('_', ' ')}: {text}")
        return "; ".join(parts)
    return str(value)


# Data keys that hold a model field's stored choice ("ehost"), shown in the field's words
# ("eHost kiosk"): (object_type of the event or "", key) -> (model label, field name). The
# choices are read through the app registry, so core keeps to its layer.
VALUE_CHOICES = {
    ("", "channel"): ("draws.activation", "channel"),
    ("", "method"): ("draws.draw", "method"),
    ("", "outcome"): ("draws.drawpick", "outcome"),
    ("", "pool"): ("draws.drawpick", "pool"),
    ("", "win_once"): ("promotions.drawseries", "win_once_scope"),
    ("", "id_type"): ("members.exclusion", "id_type"),
    ("members.importjob", "kind"): ("members.importjob", "kind"),
    ("members.exclusion", "kind"): ("members.exclusion", "kind"),
    ("draws.devicetoken", "kind"): ("draws.devicetoken", "kind"),
}


@functools.cache
def choice_words(object_type: str, key: str) -> dict[str, str]:
    """{stored value: words} of the field behind an event's data key, or {} if none."""
    source = VALUE_CHOICES.get((object_type, key)) or VALUE_CHOICES.get(("", key))
    if source is None:
        return {}
    try:
        field = apps.get_model(source[0])._meta.get_field(source[1])
    except (LookupError, FieldDoesNotExist):
        return {}
    return {str(value): str(words) for value, words in field.flatchoices}


PLAIN_NUMBERS = {"serial", "serials", "k", "seq", "draw", "attempt", "attempts", "keyed", "value"}


def _change(before, after) -> str:
    return f"{_value_text('', before) or '(empty)'} \N{RIGHTWARDS ARROW} {_value_text('', after) or '(empty)'}"


def _is_moment(value) -> bool:
    return isinstance(value, str) and _parse_moment(value) is not None


def _parse_moment(value: str) -> dt.datetime | None:
    if len(value) < 16 or value[4] != "-" or "T" not in value:
        return None
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo else None


def _moment_or_text(value: str) -> str:
    moment = _parse_moment(value)
    return local_datetime(moment) if moment else value
