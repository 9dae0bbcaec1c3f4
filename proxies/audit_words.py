"""The audit log's words for proxy nominations and declines to be present (core.audit_words),
registered from ProxiesConfig.ready()."""

from core.audit_words import ObjectKind, register_actions, register_object_kinds, words


def register() -> None:
    register_object_kinds(
        {
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
        }
    )
    register_actions(
        "Proxies and declines",
        {
            "proxy.nominated": words(
                "Proxy nominated",
                "nominated {nominee} as the proxy of card {participant} in {draw}",
                "nominated a proxy ({object})",
            ),
            "proxy.revoked": words("Proxy revoked", "revoked {object} because {reason}", "revoked {object}"),
            "decline.registered": words(
                "Decline to be present registered",
                "registered that card {member} declines to be present at {draw}",
                "registered a decline to be present",
            ),
            "decline.revoked": words(
                "Decline revoked",
                "withdrew {object} with the member present (card {member}) because {reason}",
                "revoked {object} because {reason}",
                "revoked {object}",
            ),
        },
    )
