"""The sign-in throttle: guessing passwords is slowed down without letting a guesser lock staff out.

Why not django-axes: axes counts failures per set of parameters with one limit and one pause for
all of them, and cannot tell an address the account has used from one it never has; the rule
below needs both (a long pause for the account at one address, a short one for strangers).

The rule (LOGIN_FAILURE_LIMIT = 5, LOGIN_COOLOFF = 15 minutes, LOGIN_SHORT_PAUSE = 1 minute by
default; "5 failures" means 5 whose first is less than 15 minutes before the last):

1. Account at an address: 5 wrong passwords for one username from one address pause that
   username at that address for 15 minutes from the fifth. Other addresses, and other accounts
   at that address, are not affected by this rule.
2. Account from strangers' addresses: 5 wrong passwords for one username from addresses it has
   never signed in from (together) pause that username, from such addresses only, for 1 minute
   from the last. Addresses it has signed in from before stay open: nobody elsewhere can lock an
   account out of the computers its owner uses.
3. Address guessing at strangers' accounts: 5 wrong passwords from one address for usernames
   that have never signed in from it pause that address, for such usernames only, for 1 minute
   from the last. The staff who work at that address (a casino's shared address) sign in.

During a pause the password is not checked and the attempt adds no failure (nor lengthens the
pause). A successful sign-in clears its own account's failures at its own address, nobody
else's. A promotions manager can lift every pause of an account or of an address
(`unlock`, audited). Changing one's password is throttled per account (5 wrong current
passwords: 15 minutes), each wrong guess audited.
"""

import datetime as dt
import ipaddress
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from core.audit import Actor, audit_log
from core.errors import DomainError
from core.models import SignInAddress, SignInFailure

KEEP_FAILURES = dt.timedelta(days=1)
LIST_LIMIT = 5000  # failures read to list the current pauses (a pause needs only the last few)

PAIR = "pair"
ACCOUNT = "account"
ADDRESS = "address"
PASSWORD_CHANGE = "password_change"  # noqa: S105 (a kind of pause, not a password)


def failure_limit() -> int:
    return settings.LOGIN_FAILURE_LIMIT


def cooloff() -> dt.timedelta:
    return settings.LOGIN_COOLOFF


def short_pause() -> dt.timedelta:
    return settings.LOGIN_SHORT_PAUSE


@dataclass(frozen=True)
class Pause:
    """Signing in (or changing a password) refused until `until`."""

    scope: str  # PAIR, ACCOUNT, ADDRESS or PASSWORD_CHANGE
    username: str
    ip: str | None
    until: dt.datetime
    failures: int

    @property
    def length(self) -> dt.timedelta:
        return short_pause() if self.scope in (ACCOUNT, ADDRESS) else cooloff()

    @property
    def minutes(self) -> int:
        return max(1, int(self.length.total_seconds() // 60))

    @property
    def length_words(self) -> str:
        seconds = int(self.length.total_seconds())
        if seconds % 60:
            return f"{seconds} seconds"
        return "1 minute" if seconds == 60 else f"{seconds // 60} minutes"

    @property
    def sentence(self) -> str:
        """What the pause is, in words for the manager's list."""
        who, where = self.username, self.ip or "an unknown address"
        if self.scope == PAIR:
            return f"{who} cannot sign in from {where}"
        if self.scope == ACCOUNT:
            return f"{who} cannot sign in from computers it has never signed in from"
        if self.scope == ADDRESS:
            return f"Nobody who has never signed in from {where} can sign in from there"
        return f"{who} cannot change their password"


def _pause(failures: QuerySet, *, scope: str, username: str, ip: str | None, length, now) -> Pause | None:
    """The pause `failures` impose now: the last `limit` of them less than the cool-off apart."""
    times = list(failures.filter(at__lte=now).order_by("-at").values_list("at", flat=True)[: failure_limit()])
    return _pause_of(times, scope=scope, username=username, ip=ip, length=length, now=now)


def _pause_of(times: list[dt.datetime], *, scope: str, username: str, ip: str | None, length, now) -> Pause | None:
    """`times`: the failures' times, latest first (at least the last `limit` of them)."""
    limit = failure_limit()
    if len(times) < limit or times[0] - times[limit - 1] >= cooloff():
        return None
    until = times[0] + length
    return Pause(scope, username, ip, until, limit) if now < until else None


def is_stranger(username: str, ip: str | None) -> bool:
    """Whether the account `username` has never signed in from `ip`."""
    if ip is None:
        return True
    return not SignInAddress.objects.filter(user__username=username, ip=ip).exists()


def sign_in_pause(*, username: str, ip: str | None, now: dt.datetime | None = None) -> Pause | None:
    """The pause (the longest, if several) that refuses `username` signing in from `ip` now."""
    now = now or timezone.now()
    scopes = [(PAIR, username, ip)]
    if is_stranger(username, ip):
        scopes += [(ACCOUNT, username, None), (ADDRESS, "", ip)]
    pauses = [_scope_pause(*scope, now=now) for scope in scopes]
    return max((p for p in pauses if p), key=lambda p: p.until, default=None)


def password_change_pause(*, username: str, now: dt.datetime | None = None) -> Pause | None:
    now = now or timezone.now()
    failures = SignInFailure.objects.filter(kind=SignInFailure.PASSWORD_CHANGE, username=username)
    return _pause(failures, scope=PASSWORD_CHANGE, username=username, ip=None, length=cooloff(), now=now)


def record_login_failure(*, username: str, ip: str | None, now: dt.datetime | None = None) -> Pause | None:
    """Count a wrong password; the pause it starts, if it is the one that reaches the limit.

    Called inside the caller's transaction (core.auth.on_login_failed, which audits it)."""
    now = now or timezone.now()
    SignInFailure.objects.filter(at__lt=now - KEEP_FAILURES).delete()
    SignInFailure.objects.create(
        kind=SignInFailure.LOGIN, username=username, ip=ip, stranger=is_stranger(username, ip), at=now
    )
    return sign_in_pause(username=username, ip=ip, now=now)


def record_sign_in(*, user, ip: str | None, now: dt.datetime | None = None) -> None:
    """A successful sign-in: the address becomes one of the account's own, and the account's
    failures at that address (and only those) are forgotten."""
    now = now or timezone.now()
    username = user.get_username()
    SignInFailure.objects.filter(kind=SignInFailure.LOGIN, username=username, ip=ip).delete()
    if ip is None:
        return
    updated = SignInAddress.objects.filter(user=user, ip=ip).update(last_at=now)
    if not updated:
        SignInAddress.objects.get_or_create(user=user, ip=ip, defaults={"first_at": now, "last_at": now})


def password_change_failed(*, actor: Actor, user, now: dt.datetime | None = None) -> Pause | None:
    """A wrong current password on the password-change page: counted and audited; the pause
    it starts, if it reaches the limit."""
    now = now or timezone.now()
    username = user.get_username()
    with transaction.atomic():
        SignInFailure.objects.create(
            kind=SignInFailure.PASSWORD_CHANGE, username=username, ip=actor.ip, stranger=False, at=now
        )
        audit_log(actor=actor, action="auth.password_change_failed", obj=user)
        pause = password_change_pause(username=username, now=now)
        if pause is not None:
            audit_log(
                actor=actor,
                action="auth.password_change_paused",
                obj=user,
                data={"paused_for": pause.length_words, "failures": pause.failures},
            )
    return pause


def password_changed(*, user) -> None:
    """The password was changed: its wrong guesses are forgotten. (Audited by the view, in the
    same transaction as the change.)"""
    SignInFailure.objects.filter(kind=SignInFailure.PASSWORD_CHANGE, username=user.get_username()).delete()


def current_pauses(*, now: dt.datetime | None = None) -> list[Pause]:
    """Every pause in force now, the latest-ending first, for the manager's list."""
    now = now or timezone.now()
    since = now - cooloff() - max(cooloff(), short_pause())
    recent = list(
        SignInFailure.objects.filter(at__gt=since, at__lte=now)
        .order_by("-at")
        .values_list("kind", "username", "ip", "stranger", "at")[:LIST_LIMIT]
    )
    # Every row a pause in force depends on is that recent, so the pauses are worked out from
    # these rows alone (one query, however many addresses a spray came from).
    times: dict[tuple, list[dt.datetime]] = {}
    for kind, username, ip, stranger, at in recent:
        if kind == SignInFailure.PASSWORD_CHANGE:
            keys = [(PASSWORD_CHANGE, username, None)]
        else:
            keys = [(PAIR, username, ip)] + ([(ACCOUNT, username, None), (ADDRESS, "", ip)] if stranger else [])
        for key in keys:
            times.setdefault(key, []).append(at)  # latest first, as the rows come
    pauses = []
    for (scope, username, ip), at in times.items():
        length = short_pause() if scope in (ACCOUNT, ADDRESS) else cooloff()
        pause = _pause_of(at, scope=scope, username=username, ip=ip, length=length, now=now)
        if pause is not None:
            pauses.append(pause)
    return sorted(pauses, key=lambda p: p.until, reverse=True)


def _scope_pause(scope: str, username: str, ip: str | None, *, now) -> Pause | None:
    failures = SignInFailure.objects.filter(kind=SignInFailure.LOGIN)
    if scope == PAIR:
        failures = failures.filter(username=username, ip=ip)
        return _pause(failures, scope=scope, username=username, ip=ip, length=cooloff(), now=now)
    if scope == ACCOUNT:
        failures = failures.filter(stranger=True, username=username)
        return _pause(failures, scope=scope, username=username, ip=None, length=short_pause(), now=now)
    if scope == ADDRESS:
        failures = failures.filter(stranger=True, ip=ip)
        return _pause(failures, scope=scope, username="", ip=ip, length=short_pause(), now=now)
    return password_change_pause(username=username, now=now)


def unlock(*, actor: Actor, username: str = "", ip: str = "") -> int:
    """Lift every pause of an account (signing in from anywhere, changing its password) or of an
    address (every account's sign-ins from it). Returns how many failures were forgotten."""
    username, ip = username.strip(), ip.strip()
    if bool(username) == bool(ip):
        raise DomainError("Choose one account or one address to unlock.", code="unlock_what")
    if ip:
        try:
            ip = str(ipaddress.ip_address(ip))
        except ValueError:
            raise DomainError("That is not a computer's address.", code="unlock_bad_address") from None
    with transaction.atomic():
        if username:
            deleted, _ = SignInFailure.objects.filter(username=username).delete()
            user = get_user_model().objects.filter(**{get_user_model().USERNAME_FIELD: username}).first()
            audit_log(actor=actor, action="auth.unlocked", obj=user, data={"username": username, "failures": deleted})
        else:
            deleted, _ = SignInFailure.objects.filter(kind=SignInFailure.LOGIN, ip=ip).delete()
            audit_log(actor=actor, action="auth.unlocked", data={"ip": ip, "failures": deleted})
    return deleted
