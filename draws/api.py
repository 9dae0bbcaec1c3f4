"""The machine API for eHost kiosks, the mobile app gateway and the gaming-system feed.

Every refusal is a 4xx JSON body {"code", "detail"} whose code is stable for clients.
"""

import datetime as dt

from django.http import HttpRequest
from django.urls import URLPattern, URLResolver
from django.utils import timezone
from ninja import NinjaAPI, Schema, Status
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.security import HttpBearer

from core.audit import Actor, client_ip
from core.errors import DomainError
from draws.models import Activation, Channel, DeviceKind, DeviceToken
from draws.selectors import member_open_draws
from draws.services import activation_create
from members.models import Member
from members.services import member_set_playing

STATUS_BY_CODE = {
    "unknown_card": 404,
    "unknown_draw": 404,
    "not_eligible": 403,
    "wrong_property": 403,
    "not_active_on_floor": 403,
    "window_closed": 409,
    "already_activated": 409,
    "no_tickets": 422,
    "bad_channel": 422,
    "wrong_device": 403,
}


class DeviceAuth(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> DeviceToken | None:
        device = (
            DeviceToken.objects.select_related("property")
            .filter(key_sha256=DeviceToken.hash(token), is_active=True)
            .first()
        )
        if device and (device.last_used_at is None or timezone.now() - device.last_used_at > dt.timedelta(minutes=1)):
            DeviceToken.objects.filter(pk=device.pk).update(last_used_at=timezone.now())
        return device


api = NinjaAPI(
    title="Promotions desk API",
    version="1",
    urls_namespace="api",
    docs_url=None,  # the Swagger page loads its assets from a CDN; casino back offices are often offline
    auth=DeviceAuth(),
    description="For eHost kiosks, the mobile app and the gaming-system feed. Authenticate with "
    "`Authorization: Bearer <device token>` (manage.py create_device_token).",
)


def _error(request, code: str, detail: str, status: int):
    return api.create_response(request, {"code": code, "detail": detail}, status=status)


# A kiosk screen is public: why someone is excluded is for the Rewards desk, not the floor.
NOT_ELIGIBLE = "Not eligible for this draw: please see the Rewards desk."


@api.exception_handler(DomainError)
def domain_error(request, error: DomainError):
    detail = NOT_ELIGIBLE if error.code == "not_eligible" else error.message
    return _error(request, error.code, detail, STATUS_BY_CODE.get(error.code, 400))


@api.exception_handler(AuthenticationError)
def unauthorised(request, error):
    return _error(request, "unauthorized", "Missing, unknown or revoked device token.", 401)


@api.exception_handler(ValidationError)
def bad_request(request, error: ValidationError):
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e.get('loc', [])[1:]) or 'body'}: {e.get('msg')}" for e in error.errors
    )
    return _error(request, "bad_request", f"The request is not valid: {problems}", 422)


@api.exception_handler(HttpError)
def http_error(request, error: HttpError):
    return _error(request, "bad_request", str(error), error.status_code)


class Breakdown(Schema):
    points: int
    earned: int
    free: int
    bonus: int
    capped: int
    tickets: int


class Receipt(Schema):
    receipt_number: str
    card_number: str
    member_name: str
    draw_id: int
    draw_name: str
    draw_at: dt.datetime
    property: str
    channel: str
    first_serial: int
    last_serial: int
    tickets: int
    activated_at: dt.datetime

    @staticmethod
    def of(activation: Activation) -> "Receipt":
        return Receipt(
            receipt_number=activation.receipt_number,
            card_number=activation.member.card_number,
            member_name=activation.member.full_name,
            draw_id=activation.draw_id,
            draw_name=activation.draw.name,
            draw_at=activation.draw.scheduled_at,
            property=activation.draw.property.name,
            channel=activation.channel,
            first_serial=activation.first_serial,
            last_serial=activation.last_serial,
            tickets=activation.tickets,
            activated_at=activation.activated_at,
        )


class OpenDraw(Schema):
    draw_id: int
    name: str
    draw_at: dt.datetime
    tickets_close_at: dt.datetime
    tickets_available: int
    breakdown: Breakdown | None
    refusals: list[str]
    activation: Receipt | None


class ActivationIn(Schema):
    card_number: str
    draw_id: int
    channel: Channel | None = None  # optional: the device's kind decides it


class ActivityIn(Schema):
    playing: bool


class ActivityOut(Schema):
    card_number: str
    playing: bool
    updated_at: dt.datetime


class Problem(Schema):
    code: str
    detail: str


def _member(card_number: str) -> Member:
    member = Member.objects.select_related("tier").filter(card_number=card_number).first()
    if member is None:
        raise DomainError(f"No member has card number {card_number}.", code="unknown_card")
    return member


def _actor(request) -> Actor:
    device: DeviceToken = request.auth
    return Actor(label=f"device:{device.property.code}:{device.name}", ip=client_ip(request))


@api.get("/members/{card_number}/draws", response={200: list[OpenDraw], 401: Problem, 404: Problem})
def open_draws(request, card_number: str):
    """The draws at this device's property whose ticket window is open now, with the member's
    tickets available (or why none) and any activation already made."""
    member = _member(card_number)
    rows = []
    for draw, standing, activation in member_open_draws(member, request.auth.property, timezone.now()):
        rows.append(
            OpenDraw(
                draw_id=draw.pk,
                name=draw.name,
                draw_at=draw.scheduled_at,
                tickets_close_at=draw.tickets_close_at,
                tickets_available=0 if activation else standing.tickets,
                breakdown=standing.allocation.as_dict() if standing.allocation else None,
                refusals=[NOT_ELIGIBLE] if standing.refusals else [],
                activation=Receipt.of(activation) if activation else None,
            )
        )
    return rows


@api.post("/activations", response={201: Receipt, 401: Problem, 403: Problem, 404: Problem, 409: Problem, 422: Problem})
def activate(request, payload: ActivationIn):
    """Activate the member's tickets for one draw; answers with the receipt to print.
    An eHost activates as "ehost", the app gateway as "app" (which requires the member to be
    playing now); the gaming-system feed may not activate."""
    device: DeviceToken = request.auth
    if device.kind == DeviceKind.FEED:
        raise DomainError("The gaming-system feed cannot activate tickets.", code="wrong_device")
    if payload.channel and payload.channel != device.kind:
        raise DomainError(
            f"This token belongs to an {device.get_kind_display()}; it activates as {device.kind!r} only.",
            code="bad_channel",
        )
    activation = activation_create(
        actor=_actor(request),
        draw_id=payload.draw_id,
        card_number=payload.card_number,
        channel=device.kind,
        device=device,
    )
    return Status(201, Receipt.of(activation))


@api.put("/members/{card_number}/activity", response={200: ActivityOut, 401: Problem, 403: Problem, 404: Problem})
def activity(request, card_number: str, payload: ActivityIn):
    """The gaming-system feed: is the member actively playing on slots or tables now?"""
    if request.auth.kind != DeviceKind.FEED:
        raise DomainError("Only the gaming-system feed may report who is playing.", code="wrong_device")
    member = member_set_playing(actor=_actor(request), member=_member(card_number), playing=payload.playing)
    return ActivityOut(card_number=member.card_number, playing=member.playing_now, updated_at=member.playing_updated_at)


def _login_not_required(patterns):
    """Devices authenticate with a token, not a staff login session."""
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            _login_not_required(pattern.url_patterns)
        elif isinstance(pattern, URLPattern):
            pattern.callback.login_required = False
    return patterns


def api_urls():
    patterns, app_name, namespace = api.urls
    return _login_not_required(patterns), app_name, namespace
