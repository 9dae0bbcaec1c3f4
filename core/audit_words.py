"""The audit log in words (issue 9, item 6): each event as a sentence a person reads ("manager
moved Thursday Queen Tier Cash draw from … to … because …"), with links to the objects it
names, and its data as "key: value" text instead of a Python dict.

Core sits below every app and never imports them (config/tests/test_layers.py): objects are
known here only by their label ("draws.draw"), their names read through the app registry, and
their pages by URL name. Each app registers the words of its objects and actions from its own
audit_words module (register_object_kinds, register_actions, …); core keeps only the registry.
"""

import datetime as dt
import functools
import string
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.apps import apps
from django.core.exceptions import FieldDoesNotExist, ImproperlyConfigured
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


# object_type ("draws.draw") -> its kind; each app registers its own (register_object_kinds).
OBJECT_KINDS: dict[str, ObjectKind] = {}

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


def words(label: str, *says: str, derive=None) -> ActionWords:
    """An action's words, for an app's audit_words module: words("Draw moved", "moved {object}")."""
    return ActionWords(label, says, derive) if derive else ActionWords(label, says)


# --- The registry --------------------------------------------------------------------------
# Each app names its own objects, actions and system actors in its audit_words module, imported
# from its AppConfig.ready() (as pretix's logentrytype_registry): core keeps only the machinery.
# A second registration of the same key is a mistake (two apps claiming one code), refused at
# startup rather than one silently replacing the other's words.

ACTIONS: dict[str, ActionWords] = {}  # "draw.moved" -> its words
AREAS: dict[str, str] = {}  # an action's first word ("draw") -> the filter's group ("Draws")
SYSTEM_ACTORS: dict[str, str] = {}  # Actor.system(name) -> who that is in words
# Data keys that hold a model field's stored choice ("ehost"), shown in the field's words
# ("eHost kiosk"): (object_type of the event or "", key) -> (model label, field name). The
# choices are read through the app registry, so core keeps to its layer.
VALUE_CHOICES: dict[tuple[str, str], tuple[str, str]] = {}


class AlreadyRegistered(ImproperlyConfigured):
    pass


def _add(registry: dict, key, value, what: str) -> None:
    if key in registry:
        raise AlreadyRegistered(f"The audit {what} {key!r} is registered twice.")
    registry[key] = value


def register_object_kinds(kinds: dict[str, ObjectKind]) -> None:
    for object_type, kind in kinds.items():
        _add(OBJECT_KINDS, object_type, kind, "object kind")


def register_actions(area: str, actions: dict[str, ActionWords]) -> None:
    """`actions` shown in the filter under `area`; every action of one first word in one area."""
    for code, action_words in actions.items():
        prefix = code.partition(".")[0]
        if AREAS.setdefault(prefix, area) != area:
            raise AlreadyRegistered(f"The audit actions {prefix}.* are in {AREAS[prefix]!r}, not {area!r}.")
        _add(ACTIONS, code, action_words, "action")


def register_system_actors(actors: dict[str, str]) -> None:
    for name, actor_words_ in actors.items():
        _add(SYSTEM_ACTORS, name, actor_words_, "system actor")


def register_value_choices(choices: dict[tuple[str, str], tuple[str, str]]) -> None:
    """(object_type or "", data key) -> (model label, field name): see VALUE_CHOICES."""
    for key, source in choices.items():
        _add(VALUE_CHOICES, key, source, "value choice")
    choice_words.cache_clear()


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
    # Areas come from every app, registered in the order of INSTALLED_APPS: named in the
    # alphabet's order instead, which reads the same whatever order the apps start in.
    for area, actions in sorted(groups.items()):
        every = (f"area:{area}", f"Everything in {area.lower()}")
        choices.append((area, [every, *sorted(actions, key=lambda choice: choice[1])]))
    return choices


def area_prefixes(area: str) -> list[str]:
    """The code prefixes of an area's actions ("draw.", "tickets.", "device.")."""
    return [f"{prefix}." for prefix, name in AREAS.items() if name == area]


# --- Actors --------------------------------------------------------------------------------

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
