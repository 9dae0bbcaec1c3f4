"""Signing in and out: who tried, from where, and what came of it, in the audit log; and the
login throttle (core.throttle) wired to it."""

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpRequest

from core import throttle
from core.audit import Actor, audit_log, client_ip
from core.swipe import CARD_SWIPE, looks_like_swipe


class LoginThrottleBackend:
    """Refuses any sign-in that a pause (core.throttle) stops, before the password is checked;
    otherwise it steps aside for the password check (ModelBackend, next in the list).

    The pause is left on the request (`sign_in_pause`) for core.throttle_views.SignInPauseMiddleware,
    which answers with the "paused" page. A call with no request is not a sign-in through a
    page (the test client's login(), a management command): there is no address to throttle.
    """

    def authenticate(self, request: HttpRequest | None, username=None, password=None, **kwargs):
        if request is None or username is None:
            return None
        pause = throttle.sign_in_pause(username=_username_text(username), ip=client_ip(request))
        if pause is not None:
            request.sign_in_pause = pause
            raise PermissionDenied  # Django stops here and signals user_login_failed
        return None

    # No get_user(): no session is ever this backend's, so the test client's force_login() and
    # Django's session lookup go to ModelBackend.


def clean_text(value: object, limit: int = 150) -> str:
    """What a person typed, safe to store: NUL bytes and lone surrogates cannot go into a
    PostgreSQL JSON value, and a 4 MB "username" must not fill the log."""
    text = str(value or "").replace("\x00", "")
    return text.encode("utf-8", "replace").decode("utf-8")[:limit]


def _username_text(value: object) -> str:
    """The username tried, as the audit log keeps it: a card swipe (a reader's stripe, which holds
    a member's name, typed into the username field) is kept only as "(card swipe)"."""
    text = clean_text(value)
    return CARD_SWIPE if looks_like_swipe(text) else text


def _request_actor(request: HttpRequest | None, label: str, user=None) -> Actor:
    return Actor(label=label, user=user, ip=client_ip(request) if request is not None else None)


def on_logged_in(sender, request, user, **kwargs) -> None:
    actor = _request_actor(request, user.get_username(), user)
    with transaction.atomic():
        audit_log(actor=actor, action="auth.logged_in", obj=user)
        if request is not None:
            throttle.record_sign_in(user=user, ip=actor.ip)


def on_logged_out(sender, request, user, **kwargs) -> None:
    if user is None:  # the session had already expired: nobody to record
        return
    with transaction.atomic():
        audit_log(actor=_request_actor(request, user.get_username(), user), action="auth.logged_out", obj=user)


def on_login_failed(sender, credentials, request=None, **kwargs) -> None:
    # Django hands over the credentials with the password already masked; only the username
    # is kept, never anything from the password field.
    username = _username_text(credentials.get(get_user_model().USERNAME_FIELD))
    user = get_user_model().objects.filter(**{get_user_model().USERNAME_FIELD: username}).first()
    data = {"username": username}
    actor = _request_actor(request, "anonymous")
    with transaction.atomic():
        if request is not None and getattr(request, "sign_in_pause", None) is not None:
            # Refused by a pause: no password was checked, so nothing is counted.
            data["locked_out"] = True
            audit_log(actor=actor, action="auth.login_failed", obj=user, data=data)
            return
        audit_log(actor=actor, action="auth.login_failed", obj=user, data=data)
        if request is None:
            return  # not a sign-in through a page: no address to count it against
        pause = throttle.record_login_failure(username=username, ip=actor.ip)
        if pause is not None:
            # This failure reached the limit: the page says so now (core.throttle_views).
            request.sign_in_pause = pause
            audit_log(
                actor=actor,
                action="auth.locked_out",
                obj=user,
                data={"username": username, "paused_for": pause.length_words, **({"ip": actor.ip} if actor.ip else {})},
            )


def connect() -> None:
    from django.contrib.auth import signals

    signals.user_logged_in.connect(on_logged_in, dispatch_uid="core.auth.logged_in")
    signals.user_logged_out.connect(on_logged_out, dispatch_uid="core.auth.logged_out")
    signals.user_login_failed.connect(on_login_failed, dispatch_uid="core.auth.login_failed")
