"""The audit log's words for record packs and members' own records (core.audit_words),
registered from RecordsConfig.ready()."""

from core.audit_words import register_actions


def register() -> None:
    register_actions("records", {})
