"""Secret fields: values nobody reads through the application — no page, filter, search, sort,
export, API or admin — because knowing them (or a prefix of them) lets someone choose an outcome
or impersonate a device or a person.

The one table of them is SECRET_FIELDS. Core sits below every app (config/tests/test_layers.py),
so models are named by label. A field may be revealed for one object once a condition holds:
the name of a method of the model that says so (a draw's seed once the draw is complete, DRAWS.md
§1); None: never revealed. Even a revealed field is never a filter, search or sort key: those
range over every row, revealed or not.

The admin applies this table to every ModelAdmin registered (core.admin_site); the RAPS list's
canonical text and the entry hashes are published commitments, not secrets.
"""

from django.core.exceptions import FieldDoesNotExist
from django.db.models.constants import LOOKUP_SEP

SECRET_FIELDS: dict[str, dict[str, str | None]] = {
    # The draw's seed: whoever knows it before the first pick knows every pick (DRAWS.md §1).
    "draws.draw": {"seed_hex": "is_complete"},
    # A device token's hash: the token itself is shown once, when issued, and never kept.
    "draws.devicetoken": {"key_sha256": None},
    # A password hash: offline guessing needs nothing else.
    "auth.user": {"password": None},
}


def secret_names(model) -> frozenset[str]:
    """The secret fields of a model (a class or an instance)."""
    return frozenset(SECRET_FIELDS.get(model._meta.label_lower, ()))


def is_revealed(obj, name: str) -> bool:
    """Whether this object's secret field `name` may be shown (False for no object)."""
    if obj is None:
        return False
    condition = SECRET_FIELDS.get(obj._meta.label_lower, {}).get(name)
    return bool(condition) and bool(getattr(obj, condition)())


def hidden_names(model, obj=None) -> frozenset[str]:
    """The secret fields of `model` that may not be shown for `obj` (all of them without one)."""
    return frozenset(name for name in secret_names(model) if not is_revealed(obj, name))


def touches_secret(model, path: str) -> bool:
    """Whether a lookup, search, ordering or filter path ("seed_hex__startswith",
    "draw__seed_hex", "-seed_hex", "^=@" search prefixes) reads a secret field on the way. Parts
    that are not fields end the walk (they are transforms and lookups, e.g. "startswith")."""
    if not isinstance(path, str):
        return False
    path = path.lstrip("-^=@?")
    for part in path.split(LOOKUP_SEP):
        if part in secret_names(model):
            return True
        try:
            field = model._meta.get_field(part)
        except FieldDoesNotExist:
            return False
        if not field.is_relation or field.related_model is None:
            return False
        model = field.related_model
    return False
