"""The staff roles, as Django groups, and the permissions each one holds.

This table is the one place that says who may do what; views declare the permission they
need and the navigation shows a link only to those who hold it.
"""

from django.apps import apps
from django.contrib.auth.models import Group, Permission

REWARDS_DESK = "rewards_desk"
PROMOTIONS_MANAGER = "promotions_manager"
CASH_DESK = "cash_desk"
AUDITOR = "auditor"
# The big screen on the stage on draw night: it follows a draw and may change nothing.
STAGE_DISPLAY = "stage_display"

ROLE_PERMISSIONS: dict[str, set[str]] = {
    REWARDS_DESK: {
        "members.view_member",
        "members.add_member",
        "members.change_member_contact",  # phone and e-mail only
        "members.view_exclusion",
        "promotions.view_promotion",
        "draws.view_draw",
        "draws.view_activation",
        "draws.add_activation",  # VIP desk printing for Ace, King and Queen members
        "proxies.view_proxynomination",
        "proxies.add_proxynomination",
        "proxies.change_proxynomination",  # revoke, with the reason kept
        "proxies.view_declineregistration",
        "proxies.add_declineregistration",
        "proxies.change_declineregistration",
        "prizes.view_prizeletter",  # each winner's letter, on the draw's prizes and the member page
        "prizes.add_prizeletter",  # issue a letter to the winner in person (issue 15)
        "records.disclose_member_record",  # a member's own record, to them in person (POPIA s23)
    },
    PROMOTIONS_MANAGER: {
        "members.view_member",
        "members.change_member",  # corrects a member's record
        "members.view_exclusion",
        "members.add_exclusion",
        "members.change_exclusion",
        "members.view_importjob",
        "members.add_importjob",
        "core.view_auditevent",
        "core.unlock_sign_in",  # lift a sign-in pause (core.throttle)
        "promotions.view_promotion",
        "promotions.add_promotion",
        "promotions.change_promotion",
        "promotions.add_drawseries",
        "promotions.change_drawseries",
        "draws.view_draw",
        "draws.add_draw",
        "draws.change_draw",
        "draws.view_activation",
        "draws.view_drawpick",  # the draw record
        "draws.add_drawpick",  # run a draw: start, key serials, record outcomes
        "draws.add_rapslist",  # upload a RAPS session's active players
        "draws.view_stage",  # the stage screen and tonight's draws
        "proxies.view_proxynomination",
        "proxies.view_declineregistration",
        "prizes.view_progressive",  # the jackpots and every change of them
        "prizes.change_progressive",  # set a jackpot's amount (GH A4), put one back to base
        "prizes.view_prizeboard",  # prize boards: fill in the required settings (issue 14)
        "prizes.change_prizeboard",
        "prizes.view_prizeline",  # the prize record
        "prizes.reverse_prizeline",  # a correction is a reversing line, with the reason
        "prizes.view_prizeletter",
        "prizes.void_prizeletter",  # void or reissue a letter, with the reason
        "prizes.view_payout",
        "prizes.record_device_payout",  # RF bonus jackpot prizes paid at the device (r14, r29)
        "records.view_recordpack",  # a promotion's record pack for the regulator (issue 16)
        "records.add_recordpack",
        "records.disclose_member_record",  # a member's own record, to them in person (POPIA s23)
    },
    CASH_DESK: {
        # Cashiers check the winner's identity against the member record before paying out.
        "members.view_member",
        "prizes.view_prizeletter",  # scan or key a letter
        "prizes.view_payout",
        "prizes.add_payout",  # pay a letter's lines (issue 15, Part 2)
    },
    AUDITOR: {
        # Read-only: every "view" permission the roles above use, and the audit log.
        "members.view_member",
        "members.view_exclusion",
        "members.view_importjob",
        "core.view_auditevent",
        "promotions.view_promotion",
        "draws.view_draw",
        "draws.view_activation",
        "draws.view_drawpick",
        "draws.view_stage",
        "proxies.view_proxynomination",
        "proxies.view_declineregistration",
        "prizes.view_progressive",
        "prizes.view_prizeboard",
        "prizes.view_prizeline",
        "prizes.view_prizeletter",
        "prizes.view_payout",
        "records.view_recordpack",
        # Asking for a record pack changes no business data (it is audited): the issue gives it to auditors.
        "records.add_recordpack",
    },
    STAGE_DISPLAY: {
        # The stage screen and tonight's draws only: no member, no record, no button.
        "draws.view_stage",
    },
}

ROLE_LABELS = {
    REWARDS_DESK: "Rewards desk",
    PROMOTIONS_MANAGER: "Promotions manager",
    CASH_DESK: "Cash desk",
    AUDITOR: "Auditor",
    STAGE_DISPLAY: "Stage display",
}


def sync_roles(sender=None, **kwargs) -> None:
    """Create the groups and give each exactly the permissions in ROLE_PERMISSIONS: after the
    last app's post_migrate (migrate and flush send one per app; doing the ~80 queries for each
    of them was a third of a migrate with nothing to apply)."""
    if sender is not None and sender is not _last_migrated_app():
        return
    for role, codes in ROLE_PERMISSIONS.items():
        group, _ = Group.objects.get_or_create(name=role)
        permissions = []
        for code in sorted(codes):
            app_label, codename = code.split(".")
            permission = Permission.objects.filter(content_type__app_label=app_label, codename=codename).first()
            if permission is None:
                return  # not every app has migrated yet; the last post_migrate call finishes the job
            permissions.append(permission)
        group.permissions.set(permissions)


def _last_migrated_app():
    """The app config the last post_migrate of a migrate or flush is sent for (Django sends one
    for each app with models, in INSTALLED_APPS order)."""
    return [config for config in apps.get_app_configs() if config.models_module is not None][-1]
