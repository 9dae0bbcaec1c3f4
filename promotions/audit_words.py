"""The audit log's words for promotions and their draw series (core.audit_words), registered
from PromotionsConfig.ready()."""

from core.audit_words import ObjectKind, register_actions, register_object_kinds, register_value_choices, words


def register() -> None:
    register_object_kinds(
        {
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
        }
    )
    register_actions(
        "Promotions",
        {
            "promotion.created": words("Promotion created", "created the promotion {object}"),
            "promotion.updated": words("Promotion changed", "changed the promotion {object}"),
            "series.created": words("Draw series created", "created the draw series {object}"),
            "series.updated": words("Draw series changed", "changed the draw series {object}"),
        },
    )
    register_value_choices({("", "win_once"): ("promotions.drawseries", "win_once_scope")})
