from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group
from django.db import transaction
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html

from core.audit import Actor, audit_log
from core.forms import AdminLoginForm
from core.models import AuditEvent


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows that only services change (they validate and audit it): the admin shows them."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    """The log is append-only: the admin may read it, never change it."""

    list_display = ["created_at", "actor_label", "action", "object_type", "object_id", "ip"]
    list_filter = ["action"]
    search_fields = ["actor_label", "object_id", "action"]


def _plain(value: object) -> object:
    """A form value as the audit log's JSON can hold it."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if hasattr(value, "all") and callable(value.all):  # a many-to-many value
        return sorted(str(item) for item in value.all())
    if isinstance(value, list | tuple | set | frozenset):
        return sorted(str(item) for item in value)
    return str(value)


class AuditedAdmin(admin.ModelAdmin):
    """Every add, change and delete made through this admin page, with its before and after,
    in the audit log (the admin runs these inside the request's transaction).

    `audit_name` is the namespace of the action codes: "property.created", "tier.changed".
    Fields in `audit_ignore` are never written out (a password hash has no place in the log).
    """

    audit_name = ""
    audit_ignore: tuple[str, ...] = ()

    def save_model(self, request, obj, form, change):
        changed = [
            name
            for name in form.changed_data
            if name not in self.audit_ignore and not isinstance(form.fields[name], forms.ModelMultipleChoiceField)
        ]
        # The form has already written the new values onto obj: the old ones come from the row.
        old = type(obj)._default_manager.filter(pk=obj.pk).first() if change else None
        before = {name: getattr(old, name, None) for name in changed}
        super().save_model(request, obj, form, change)
        if change:
            fields = {
                name: {"before": _plain(before[name]), "after": _plain(getattr(obj, name, None))}
                for name in changed
                if before[name] != getattr(obj, name, None)
            }
            if fields:
                audit_log(actor=Actor.from_request(request), action=f"{self.audit_name}.changed", obj=obj, data=fields)
        else:
            data = {
                name: _plain(form.cleaned_data.get(name))
                for name in form.cleaned_data
                if name in form.fields
                and name not in self.audit_ignore
                and not isinstance(form.fields[name], forms.ModelMultipleChoiceField)
            }
            audit_log(actor=Actor.from_request(request), action=f"{self.audit_name}.created", obj=obj, data=data)

    def delete_model(self, request, obj):
        audit_log(
            actor=Actor.from_request(request), action=f"{self.audit_name}.deleted", obj=obj, data={"was": str(obj)}
        )
        super().delete_model(request, obj)

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            audit_log(
                actor=Actor.from_request(request), action=f"{self.audit_name}.deleted", obj=obj, data={"was": str(obj)}
            )
        super().delete_queryset(request, queryset)


class AuditedUserAdmin(AuditedAdmin, UserAdmin):
    """Staff accounts: who created whom, who switched is_staff / is_superuser / is_active, who
    put whom in which group (a group is a role: rewards desk, promotions manager...), and who
    set whose password."""

    audit_name = "user"
    audit_ignore = (
        "password",
        "password1",
        "password2",
        "usable_password",
        "set_usable_password",
        "last_login",
        "groups",
        "user_permissions",
    )

    # The password hash is a secret field (core.secrets): the site leaves it off the page, so
    # the page says whether a password is set and links to setting a new one.
    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None:
            return fieldsets
        (name, options), *rest = fieldsets
        return [(name, {**options, "fields": [*options["fields"], "password_state"]}), *rest]

    def get_readonly_fields(self, request, obj=None):
        fields = super().get_readonly_fields(request, obj)
        return [*fields, "password_state"] if obj is not None else fields

    @admin.display(description="Password")
    def password_state(self, user):
        state = "Set" if user.has_usable_password() else "Not set: this account cannot sign in with a password"
        url = reverse("admin:auth_user_password_change", args=[user.pk])
        return format_html('{} · <a href="{}">Set a new password</a>', state, url)

    def save_related(self, request, form, formsets, change):
        user = form.instance
        groups_before = set(user.groups.values_list("name", flat=True)) if change else set()
        permissions_before = set(_permission_codes(user)) if change else set()
        super().save_related(request, form, formsets, change)
        groups_after = set(user.groups.values_list("name", flat=True))
        permissions_after = set(_permission_codes(user))
        if groups_after != groups_before:
            audit_log(
                actor=Actor.from_request(request),
                action="user.groups_changed",
                obj=user,
                data={
                    "username": user.get_username(),
                    "added": sorted(groups_after - groups_before),
                    "removed": sorted(groups_before - groups_after),
                },
            )
        if permissions_after != permissions_before:
            audit_log(
                actor=Actor.from_request(request),
                action="user.permissions_changed",
                obj=user,
                data={
                    "username": user.get_username(),
                    "added": sorted(permissions_after - permissions_before),
                    "removed": sorted(permissions_before - permissions_after),
                },
            )

    def user_change_password(self, request, id, form_url=""):
        with transaction.atomic():
            response = super().user_change_password(request, id, form_url)
            # The admin redirects only once the new password is saved.
            if request.method == "POST" and isinstance(response, HttpResponseRedirect):
                user = self.get_object(request, id)
                audit_log(
                    actor=Actor.from_request(request),
                    action="user.password_set",
                    obj=user,
                    data={"username": user.get_username()},
                )
        return response


def _permission_codes(user) -> list[str]:
    return [f"{app}.{code}" for app, code in user.user_permissions.values_list("content_type__app_label", "codename")]


admin.site.unregister(get_user_model())
admin.site.register(get_user_model(), AuditedUserAdmin)


class RoleAdmin(ReadOnlyAdmin, GroupAdmin):
    """A group is a role, and each role's permissions are the table in core/roles.py, set again
    after every migrate: the admin shows them and may not change them (an edit here would be
    lost, and untracked, until then). Who holds a role is changed on the user, and audited."""


admin.site.unregister(Group)
admin.site.register(Group, RoleAdmin)

# A card swipe in the admin's username field is refused before the password check, as on the
# sign-in page (core.forms.LoginForm).
admin.site.login_form = AdminLoginForm
