"""The machine API for eHost kiosks, the mobile app gateway and the gaming-system feed.

Every refusal is a 4xx JSON body {"code", "detail"} whose code is stable for clients.
"""

import datetime as dt
from typing import Annotated, Any, Literal

from django.http import Http404, HttpRequest
from django.urls import URLPattern, URLResolver
from django.utils import timezone
from ninja import Field, NinjaAPI, Schema, Status
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.security import HttpBearer
from pydantic import ConfigDict, StrictBool, StrictInt, StrictStr

from core.audit import Actor, client_ip
from core.errors import ERRORS, DomainError
from draws import activation_cache
from draws.activation_cache import DeviceRevoked
from draws.api_errors import DEFAULT_PROBLEM, clip
from draws.models import Activation, DeviceKind, DeviceToken
from draws.selectors import member_open_draws
from draws.services import activation_create
from members.models import Member
from members.selectors import member_by_card
from members.services import member_set_playing


class DeviceAuth(HttpBearer):
    """The device of the bearer token, from this worker's copy of the last few seconds
    (draws.activation_cache). A token revoked meanwhile is refused at once all the same: each
    operation asks the database whether its device is still active, in a statement it sends
    anyway (activation, open draws) or in its own (the feed)."""

    def authenticate(self, request: HttpRequest, token: str) -> DeviceToken | None:
        device = activation_cache.device_by_key(DeviceToken.hash(token))
        now = timezone.now()
        if device and (device.last_used_at is None or now - device.last_used_at > dt.timedelta(minutes=1)):
            DeviceToken.objects.filter(pk=device.pk).update(last_used_at=now)
            device.last_used_at = now
        return device


api = NinjaAPI(
    title="Promotions desk API",
    version="1",
    urls_namespace="api",
    docs_url=None,  # the Swagger page loads its assets from a CDN; casino back offices are often offline
    auth=DeviceAuth(),
    description="For eHost kiosks, the mobile app and the gaming-system feed. Authenticate with "
    "`Authorization: Bearer <device token>` (manage.py create_device_token).\n\n"
    'Every error answer is JSON `{"code", "detail"}` (schema `Problem`): `code` is stable, for '
    "programs; `detail` is a sentence for people and echoes at most a short prefix of the request. "
    "Each operation lists the codes it can answer. Whatever the address under `/api/`: a method a "
    "path does not offer answers 405 `method_not_allowed` (with an `Allow` header), an unknown "
    "address 404 `not_found`, a body over the size limit 413 `payload_too_large`, and a fault on "
    "our side 500 `server_error`.",
)

# The answers that are no rule's refusal: name -> (status, code, meaning). "bad_json" is the 400
# flavour of "bad_request".
TRANSPORT = {
    "bad_request": (
        422,
        "bad_request",
        "a field is missing, unknown, of the wrong type or out of range (nothing was looked up)",
    ),
    "bad_json": (400, "bad_request", "the body is not JSON"),
    "unauthorized": (401, "unauthorized", "missing, unknown or revoked device token"),
    "payload_too_large": (413, "payload_too_large", "the body is over the size limit"),
    "server_error": (500, "server_error", "a fault on our side; it is logged and nothing was changed"),
}
# Where each name answers and what it means, for the OpenAPI document: a rule's refusal (a
# DomainError) by its entry in the one error table, core.errors.ERRORS.
ANSWERS = {**{e.code: (e.status, e.code, e.meaning) for e in ERRORS.values()}, **TRANSPORT}
# What every operation can answer whatever it does.
EVERY_OPERATION = ("unauthorized", "payload_too_large", "server_error")


class Problem(Schema):
    code: str = Field(description="Stable, for programs: each answer's description lists its codes.")
    detail: str = Field(description="For people; never more than a short prefix of what was sent.")


def documented(success: dict[int, Any], *names: str) -> dict[str, Any]:
    """`response` and `openapi_extra` for an operation: its success and each error status it can
    answer, described by the codes behind it, so that the document says what the API does."""
    by_status: dict[int, list[str]] = {}
    for name in (*names, *EVERY_OPERATION):
        status, code, meaning = ANSWERS[name]
        by_status.setdefault(status, []).append(f"`{code}`: {meaning}")
    return {
        "response": {**success, **dict.fromkeys(by_status, Problem)},
        "openapi_extra": {"responses": {s: {"description": "; ".join(d)} for s, d in by_status.items()}},
    }


def _error(request, code: str, detail: str, status: int):
    return api.create_response(request, {"code": code, "detail": detail}, status=status)


# A kiosk screen is public: why someone is excluded is for the Rewards desk, not the floor.
NOT_ELIGIBLE = "Not eligible for this draw: please see the Rewards desk."


@api.exception_handler(DomainError)
def domain_error(request, error: DomainError):
    detail = NOT_ELIGIBLE if error.code == "not_eligible" else error.message
    entry = ERRORS.get(error.code)  # always there, but production logs an unknown code rather than fail
    return _error(request, error.code, detail, entry.status if entry else 400)


@api.exception_handler(AuthenticationError)
@api.exception_handler(DeviceRevoked)
def unauthorised(request, error):
    return _error(request, "unauthorized", "Missing, unknown or revoked device token.", 401)


# What a valid value of each input field looks like, said instead of pydantic's wording.
FIELD_RULES = {
    "card_number": "must be 6 to 20 digits, as a string",
    "draw_id": "must be a whole number from 1 (not a string or true/false)",
    "channel": 'must be "ehost" or "app", or left out',
    "playing": "must be true or false",
}


def _problem_text(error: dict) -> str:
    # The location without its source ("body", "path") or the body's parameter name; its parts
    # are client keys, so clipped like any input.
    loc = [str(part) for part in error.get("loc", ())[1:]]
    if loc and loc[0] == "payload":
        loc = loc[1:]
    where = ".".join(clip(part, 20) for part in loc) or "body"
    kind = error.get("type", "")
    if kind == "missing":
        return f"{where}: required"
    if kind == "extra_forbidden":
        return f"{where}: not a field of this request"
    if where in FIELD_RULES:
        return f"{where}: {FIELD_RULES[where]}"
    if where == "body":
        return "body: must be a JSON object"
    return f"{where}: {clip(error.get('msg', 'not valid'), 80)}"


@api.exception_handler(ValidationError)
def bad_request(request, error: ValidationError):
    problems = [_problem_text(e) for e in error.errors[:3]]
    if len(error.errors) > 3:
        problems.append(f"and {len(error.errors) - 3} more")
    return _error(request, "bad_request", f"The request is not valid: {'; '.join(problems)}.", 422)


@api.exception_handler(HttpError)
def http_error(request, error: HttpError):
    if error.status_code == 400:
        # ninja's "Cannot parse request body" (with the parser's words in DEBUG)
        return _error(request, "bad_request", "The request body is not valid JSON.", 400)
    code, detail = DEFAULT_PROBLEM.get(error.status_code, ("bad_request", clip(error, 80)))
    return _error(request, code, detail, error.status_code)


@api.exception_handler(Http404)
def not_found(request, error):
    return _error(request, *DEFAULT_PROBLEM[404], 404)


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


# Card numbers are issued and imported as 6 to 20 digits (members/imports.py): anything else is
# refused before a lookup, and never echoed.
CardNumber = Annotated[
    StrictStr, Field(pattern=r"^[0-9]{6,20}$", min_length=6, max_length=20, description="6 to 20 digits")
]
# BigAutoField's range: a larger id is refused, not sent to the database.
DrawId = Annotated[StrictInt, Field(ge=1, le=2**63 - 1)]


class ActivationIn(Schema):
    # A misspelt field is refused rather than ignored.
    model_config = ConfigDict(extra="forbid")

    card_number: CardNumber
    draw_id: DrawId
    # Optional: the token's kind decides the channel; sent, it must agree. The desk activates only
    # from its own pages, so no token ever activates as "desk" and the document does not offer it.
    channel: Literal["ehost", "app"] | None = None


class ActivityIn(Schema):
    model_config = ConfigDict(extra="forbid")

    playing: StrictBool


class ActivityOut(Schema):
    card_number: str
    playing: bool
    updated_at: dt.datetime


def _member(card_number: str) -> Member:
    member = member_by_card(card_number)
    if member is None:
        raise DomainError(f"No member has card number {card_number}.", code="unknown_card")
    return member


def _actor(request) -> Actor:
    device: DeviceToken = request.auth
    return Actor(label=f"device:{device.property.code}:{device.name}", ip=client_ip(request))


@api.get("/members/{card_number}/draws", **documented({200: list[OpenDraw]}, "bad_request", "unknown_card"))
def open_draws(request, card_number: CardNumber):
    """The draws at this device's property whose ticket window is open now, with the member's
    tickets available (or why none) and any activation already made."""
    member = _member(card_number)
    rows = []
    device: DeviceToken = request.auth
    for draw, standing, activation in member_open_draws(member, device.property, timezone.now(), device=device):
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


@api.post(
    "/activations",
    **documented(
        {201: Receipt},
        "bad_json",
        "bad_request",
        "bad_channel",
        "no_tickets",
        "wrong_device",
        "wrong_property",
        "not_active_on_floor",
        "not_eligible",
        "unknown_card",
        "unknown_draw",
        "window_closed",
        "not_published",
        "raps_session",
        "already_activated",
        "rule_changed",
        "rule_unreadable",
        "is_proxy",
    ),
)
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


@api.put(
    "/members/{card_number}/activity",
    **documented({200: ActivityOut}, "bad_json", "bad_request", "wrong_device", "unknown_card"),
)
def activity(request, card_number: CardNumber, payload: ActivityIn):
    """The gaming-system feed: is the member actively playing on slots or tables now, at this
    feed's property? The app may then activate for that property's draws only."""
    device: DeviceToken = request.auth
    if device.kind != DeviceKind.FEED:
        raise DomainError("Only the gaming-system feed may report who is playing.", code="wrong_device")
    activation_cache.refuse_if_revoked(device)  # revoked since DeviceAuth's copy
    member = member_set_playing(
        actor=_actor(request), member=_member(card_number), playing=payload.playing, prop=device.property
    )
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
