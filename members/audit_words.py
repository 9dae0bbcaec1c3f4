"""The audit log's words for members, exclusions, imports and the reference data
(core.audit_words), registered from MembersConfig.ready()."""

from core.audit_words import (
    ObjectKind,
    register_actions,
    register_object_kinds,
    register_system_actors,
    register_value_choices,
    words,
)


def _playing(data: dict) -> dict:
    return {"state": "playing" if data.get("playing") else "not playing"} if "playing" in data else {}


def register() -> None:
    register_object_kinds(
        {
            "members.member": ObjectKind(
                "Member",
                "member",
                ("first_name", "last_name", "card_number"),
                lambda v: f"{v['first_name']} {v['last_name']} ({v['card_number']})",
                "members:detail",
                "member_id",
                perm="members.view_member",
            ),
            "members.exclusion": ObjectKind(
                "Exclusion",
                "exclusion",
                ("full_name",),
                lambda v: f"the exclusion of {v['full_name']}" if v["full_name"] else f"exclusion {v['pk']}",
                "members:exclusions",
                perm="members.view_exclusion",
            ),
            "members.importjob": ObjectKind(
                "Import",
                "import",
                ("original_name",),
                lambda v: f"the import of {v['original_name']}",
                "members:import_detail",
                "job_id",
                perm="members.view_importjob",
            ),
            "members.property": ObjectKind("Property", "property", ("name",), lambda v: v["name"]),
            "members.tier": ObjectKind("Tier", "tier", ("name",), lambda v: f"the {v['name']} tier"),
            "members.staffprofile": ObjectKind(
                "Staff property",
                "staff property",
                ("user__username",),
                lambda v: f"the property of {v['user__username']}",
            ),
        }
    )
    register_actions(
        "Members",
        {
            "member.signed_up": words("Member signed up", "signed up {object}"),
            "member.updated": words("Member record changed", "changed the record of {object}"),
            "member.viewed": words("Member viewed", "viewed {object}"),
            "member.activity_changed": words(
                "Member playing or not", "reported {object} as {state} at {property}", derive=_playing
            ),
            "exclusion.recorded": words("Exclusion recorded", "recorded {object}"),
            "exclusion.ended": words("Exclusion ended", "ended {object} at {ends_at}", "ended {object}"),
        },
    )
    register_actions(
        "Imports",
        {
            "import.queued": words("Import uploaded", "uploaded {object} ({bytes} bytes)", "uploaded {object}"),
            "import.completed": words(
                "Import completed", "completed {object}: {imported} of {rows} rows imported", "completed {object}"
            ),
            "import.rejected": words(
                "Import rejected", "rejected {object}: {errors} rows with errors", "rejected {object}"
            ),
            "import.restarted": words("Import restarted", "restarted {object} after its worker stopped"),
            "import.abandoned": words(
                "Import abandoned", "gave up {object} after {attempts} tries", "gave up {object}"
            ),
            "import.file_purged": words("Import file deleted", "deleted the file of {object}"),
        },
    )
    # Staff properties are set in the admin beside the accounts (core's area).
    register_actions(
        "Sign-in and staff",
        {
            "staff_profile.created": words("Staff property set", "set {object}"),
            "staff_profile.changed": words("Staff property changed", "changed {object}"),
            "staff_profile.deleted": words(
                "Staff property deleted", "deleted the staff property of {was}", "deleted {object}"
            ),
        },
    )
    register_actions(
        "Reference data",
        {
            "property.created": words("Property created", "created the property {object}"),
            "property.changed": words("Property changed", "changed the property {object}"),
            "property.deleted": words("Property deleted", "deleted the property {was}", "deleted a property"),
            "tier.created": words("Tier created", "created {object}"),
            "tier.changed": words("Tier changed", "changed {object}"),
            "tier.deleted": words("Tier deleted", "deleted the tier {was}", "deleted a tier"),
            "demo.seeded": words("Demo data loaded", "loaded the demo members ({members_added} added)"),
        },
    )
    register_system_actors(
        {
            "import": "The import worker",
            "import_members": "The member import command",
            "import_points": "The points import command",
            "seed_demo": "The demo loader",
        }
    )
    register_value_choices(
        {
            ("", "id_type"): ("members.exclusion", "id_type"),
            ("members.importjob", "kind"): ("members.importjob", "kind"),
            ("members.exclusion", "kind"): ("members.exclusion", "kind"),
        }
    )
