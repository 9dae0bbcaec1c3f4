"""The audit log's words for record packs and members' own records (core.audit_words),
registered from RecordsConfig.ready()."""

from core.audit_words import ObjectKind, register_actions, register_object_kinds, register_system_actors, words


def register() -> None:
    register_object_kinds(
        {
            "records.recordpack": ObjectKind(
                "Record pack",
                "record pack",
                ("promotion__name", "promotion_id"),
                lambda v: f"the record pack of {v['promotion__name']}",
                "promotions:detail",
                "promotion_id",
                url_field="promotion_id",
                perm="promotions.view_promotion",
            ),
        }
    )
    register_actions(
        "Records",
        {
            "record_pack.requested": words("Record pack requested", "asked for {object}"),
            "record_pack.built": words(
                "Record pack built", "built {object} (manifest SHA-256 {manifest_sha256})", "built {object}"
            ),
            "record_pack.failed": words(
                "Record pack failed", "could not build {object}: {error}", "could not build {object}"
            ),
            # A member given their own record at the desk (POPIA s23; records/member_record.py).
            "disclosure.member_record": words(
                "Member's own record given", "gave {object} their own record (POPIA)", "gave a member their own record"
            ),
        },
    )
    register_system_actors({"record_pack": "The record pack builder (worker)"})
