"""The audit log's words for record packs and members' own records (core.audit_words),
registered from RecordsConfig.ready()."""

from core.audit_words import register_actions, words


def register() -> None:
    register_actions("records", {})
    # A member given their own record at the desk (POPIA s23; records/member_record.py).
    register_actions(
        "Records",
        {
            "disclosure.member_record": words(
                "Member's own record given", "gave {object} their own record (POPIA)", "gave a member their own record"
            ),
        },
    )
