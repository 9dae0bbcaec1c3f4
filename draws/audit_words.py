"""The audit log's words for draws, tickets and devices (core.audit_words), registered from
DrawsConfig.ready()."""

from core.audit_words import (
    ObjectKind,
    register_actions,
    register_object_kinds,
    register_system_actors,
    register_value_choices,
    words,
)


def _serial_count(data: dict) -> dict:
    serials = data.get("serials")
    if isinstance(serials, list) and len(serials) == 2 and all(isinstance(s, int) for s in serials):
        return {"count": serials[1] - serials[0] + 1}
    return {}


def _winner_count(data: dict) -> dict:
    return {"count": len(data["winners"])} if isinstance(data.get("winners"), list) else {}


def register() -> None:
    register_object_kinds(
        {
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
            "draws.devicetoken": ObjectKind(
                "Device (eHost, app)", "device", ("name",), lambda v: f"device {v['name']}"
            ),
        }
    )
    register_actions(
        "Draws",
        {
            "draw.scheduled": words("Draw scheduled", "scheduled {object}"),
            "draw.moved": words(
                "Draw moved",
                "moved {object} from {from} to {to} because {reason}",
                "moved {object} to {to}",
                "moved {object}",
            ),
            "draw.cancelled": words("Draw cancelled", "cancelled {object} because {reason}", "cancelled {object}"),
            "draw.entries_frozen": words(
                "Entries frozen",
                "froze the entries of {object}: {entries} entrants, {tickets} tickets",
                "froze the entries of {object}",
            ),
            "draw.started": words("Draw started", "started {object}"),
            "draw.witness_recorded": words(
                "Witness recorded", "recorded {witness} as the witness of {object}", "recorded the witness of {object}"
            ),
            "draw.picked": words(
                "Ticket picked", "picked serial {serial} (card {card_number}) in {object}", "made a pick in {object}"
            ),
            "draw.pick_outcome": words(
                "Pick outcome recorded",
                "recorded the outcome of pick {k} (card {card_number}) in {object}",
                "recorded a pick's outcome in {object}",
            ),
            "draw.winners_wanted_raised": words(
                "More winners wanted",
                "raised the winners wanted in {object} from {from} to {to} (a finalist already held a place)",
                "raised the winners wanted in {object}",
            ),
            "draw.serial_refused": words(
                "Keyed serial refused", "keyed serial {keyed} in {object}, refused: {reason}", "keyed a refused serial"
            ),
            "draw.completed": words(
                "Draw completed", "completed {object} with {count} winners", "completed {object}", derive=_winner_count
            ),
            "draw.raps_list_uploaded": words(
                "Active-player list uploaded",
                "replaced the active-player list of {object} with {file_name} because {reason}",
                "uploaded the active-player list {file_name} for {object}",
                "uploaded an active-player list for {object}",
            ),
            "tickets.activated": words(
                "Tickets activated",
                "activated {count} tickets for card {card_number} in {draw}",
                "activated {count} tickets for card {card_number}",
                "activated tickets ({object})",
                derive=_serial_count,
            ),
            "device.token_created": words("Device token created", "created a token for {object} at {property}"),
            "device.revoked": words("Device token revoked", "revoked the token of {object}"),
            "device.restored": words("Device token restored", "restored the token of {object}"),
        },
    )
    # The promotion loader lives in draws (it schedules the draws); its action is a promotion's.
    register_actions(
        "Promotions",
        {
            "promotion.seed_loaded": words(
                "Promotion loaded",
                "loaded the promotion {object} with {draws_added} draws",
                "loaded the promotion {object}",
            ),
        },
    )
    register_system_actors(
        {
            "feed": "The gaming-system feed",
            "load_seed_promotions": "The promotion loader",
            "create_device_token": "The device token command",
        }
    )
    register_value_choices(
        {
            ("", "channel"): ("draws.activation", "channel"),
            ("", "method"): ("draws.draw", "method"),
            ("", "outcome"): ("draws.drawpick", "outcome"),
            ("", "pool"): ("draws.drawpick", "pool"),
            ("draws.devicetoken", "kind"): ("draws.devicetoken", "kind"),
        }
    )
