"""Which casino a member of staff works at (members.StaffProfile), for the pages that start at
the user's property: the home page, the draws list, the member page's draws.

    staff_property(user)   -> the home Property, or None (no profile: every property)
    staff_properties(user) -> [home, *others] in that order, or None (every property)
    staff_property_ids(user) -> their primary keys, or None (every property)
    staff_properties_q(user) -> a filter on a query's property, worked out inside that query

Where staff may ACT (issue 12): the desk and managers change things only at their properties;
superusers and the system (the tick, devices, loaders: an Actor without a user) everywhere.
A signed-in user without a profile acts nowhere until an administrator gives them one (reading
is not limited: lists and pages show every property, starting at the user's own).

    staff_act_refusal(user, prop) -> why `user` may not act at `prop`, or None (pages ask it
                                     before offering a button)
    check_staff_property(actor, *props) -> raises DomainError(code="other_property") (services)

Both read the profile once per user object (a request's user asks once however many pieces of
the page ask), so a page's query count does not grow with the number of callers.
"""

from django.db import transaction
from django.db.models import Q

from core.audit import Actor, audit_log
from core.errors import DomainError
from members.models import Property, StaffProfile

_CACHE = "_staff_properties_cache"


def _profile_properties(user) -> list[Property] | None:
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    try:
        return getattr(user, _CACHE)
    except AttributeError:
        pass
    profile = StaffProfile.objects.select_related("home_property").filter(user_id=user.pk).first()
    found = None
    if profile is not None:
        others = [p for p in profile.other_properties.order_by("name") if p.pk != profile.home_property_id]
        found = [profile.home_property, *others]
    setattr(user, _CACHE, found)
    return found


def staff_property(user) -> Property | None:
    """The property the user's pages start at, or None for a user without one (all properties)."""
    found = _profile_properties(user)
    return found[0] if found else None


def staff_properties(user) -> list[Property] | None:
    """Every property the user works at, the home property first; None for all properties."""
    found = _profile_properties(user)
    return list(found) if found else None


def staff_property_ids(user) -> list[int] | None:
    """The primary keys of staff_properties(user), for filters; None for all properties."""
    found = _profile_properties(user)
    return [p.pk for p in found] if found else None


def staff_properties_q(user, field: str = "property") -> Q:
    """A filter on `field` (a foreign key to Property) matching the user's properties, worked
    out inside the query it filters: no statement of its own, for pages that pin their query
    count. Matches nothing for a user without a profile (use it to add the clerk's draws, not
    to restrict a list: for that, staff_property_ids's None means every property)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return Q(**{f"{field}__in": []})
    home = StaffProfile.objects.filter(user_id=user.pk).values("home_property_id")
    others = StaffProfile.other_properties.through.objects.filter(staffprofile__user_id=user.pk).values("property_id")
    return Q(**{f"{field}__in": home}) | Q(**{f"{field}__in": others})


def _names(properties) -> str:
    names = [p.name for p in properties]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def staff_act_refusal(user, prop: Property, *, what: str = "draws", done: str = "run") -> str | None:
    """Why `user` may not act at `prop` (a change to its draws, tickets, registers, series or
    promotions), in words for the clerk, or None: superusers act everywhere, anyone else only at
    the properties of their staff profile, and nowhere without one. `user` None is the system
    (the tick, a device, a loader), which is not limited."""
    if user is None or getattr(user, "is_superuser", False):
        return None
    if not getattr(user, "is_authenticated", False):
        return f"Sign in first: {what} at {prop.name} are {done} by its own team."
    mine = _profile_properties(user)
    if not mine:
        return (
            f"Your login has no property yet: {what} at {prop.name} are {done} by its own team. "
            "Ask an administrator to add your casino to your staff profile."
        )
    if any(p.pk == prop.pk for p in mine):
        return None
    return f"You work at {_names(mine)}: {what} at {prop.name} are {done} by its own team."


def staff_may_act_at(user, prop: Property | int) -> bool:
    """True if `user` may act at `prop` (a Property or its primary key; see staff_act_refusal),
    for pages offering a button."""
    if user is None or getattr(user, "is_superuser", False):
        return True
    prop_id = prop if isinstance(prop, int) else prop.pk
    return any(p.pk == prop_id for p in _profile_properties(user) or [])


def check_staff_property(actor: Actor, *properties: Property, what: str = "draws", done: str = "run") -> None:
    """Refuse (DomainError, code "other_property") an action of `actor` at any of `properties`
    where they do not work. Every service that changes something of a property calls it."""
    for prop in properties:
        refusal = staff_act_refusal(actor.user, prop, what=what, done=done)
        if refusal:
            raise DomainError(refusal, code="other_property")


def staff_profile_set(
    *, actor: Actor, user, home_property: Property, other_properties: list[Property] = ()
) -> StaffProfile:
    """Give `user` a home property (and any further ones), audited; a call that changes nothing
    writes nothing, so loaders may call it on every run."""
    others = sorted({p.pk for p in other_properties} - {home_property.pk})
    with transaction.atomic():
        profile = StaffProfile.objects.select_for_update().filter(user=user).first()
        before = None
        if profile is not None:
            before = {
                "home_property": profile.home_property.code,
                "other_properties": sorted(profile.other_properties.values_list("code", flat=True)),
            }
        after = {
            "home_property": home_property.code,
            "other_properties": sorted(Property.objects.filter(pk__in=others).values_list("code", flat=True)),
        }
        if before == after:
            return profile
        if profile is None:
            profile = StaffProfile.objects.create(user=user, home_property=home_property)
        elif profile.home_property_id != home_property.pk:
            profile.home_property = home_property
            profile.save(update_fields=["home_property"])
        profile.other_properties.set(others)
        audit_log(
            actor=actor,
            action="staff_profile.created" if before is None else "staff_profile.changed",
            obj=profile,
            data={"username": user.get_username(), "before": before, "after": after},
        )
    if hasattr(user, _CACHE):
        delattr(user, _CACHE)
    return profile
