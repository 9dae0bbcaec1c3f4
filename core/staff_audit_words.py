"""The audit log's words for core's own events: signing in, passwords and staff accounts
(core.audit_words keeps only the registry; this is core registering like any app, from
CoreConfig.ready())."""

from core.audit_words import ObjectKind, register_actions, register_object_kinds, register_system_actors, words


def register() -> None:
    register_object_kinds(
        {"auth.user": ObjectKind("Staff account", "user", ("username",), lambda v: f"the account {v['username']}")}
    )
    register_actions(
        "Sign-in and staff",
        {
            "auth.logged_in": words("Signed in", "signed in"),
            "auth.logged_out": words("Signed out", "signed out"),
            "auth.login_failed": words("Sign-in failed", "failed to sign in as {username}", "failed to sign in"),
            "auth.locked_out": words(
                "Locked out",
                "paused signing in as {username} from {ip} for {paused_for} after too many wrong passwords",
                "paused signing in as {username} for {paused_for} after too many wrong passwords",
                "locked out {username} after too many failed sign-ins",
            ),
            "auth.unlocked": words(
                "Sign-in pause lifted",
                "lifted every sign-in pause of the account {username}",
                "lifted every sign-in pause of the address {ip}",
            ),
            "auth.password_changed": words("Password changed", "changed their password"),
            "auth.password_change_failed": words(
                "Wrong password when changing it", "gave a wrong current password when changing their password"
            ),
            "auth.password_change_paused": words(
                "Password change paused",
                "had changing their password paused for {paused_for} after too many wrong current passwords",
            ),
            "user.created": words("Staff account created", "created {object}"),
            "user.changed": words("Staff account changed", "changed {object}"),
            "user.deleted": words("Staff account deleted", "deleted the account {was}", "deleted {object}"),
            "user.groups_changed": words("Roles changed", "changed the roles of {object}"),
            "user.permissions_changed": words("Permissions changed", "changed the permissions of {object}"),
            "user.password_set": words("Password set", "set the password of {object}"),
        },
    )
    # The scheduled tick (config.tasks) acts for every app.
    register_system_actors({"tick": "The system (scheduled)"})
