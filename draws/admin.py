from django.contrib import admin, messages

from core.audit import Actor, audit_log
from draws.models import Activation, DeviceToken, Draw, TicketWindow
from draws.services import device_token_create


class TicketWindowInline(admin.TabularInline):
    model = TicketWindow
    extra = 0
    readonly_fields = ["opens_at", "closes_at"]
    can_delete = False


@admin.register(Draw)
class DrawAdmin(admin.ModelAdmin):
    list_display = ["name", "property", "scheduled_at", "status", "entries_count", "tickets_total"]
    list_filter = ["status", "property"]
    inlines = [TicketWindowInline]
    exclude = ["seed_hex"]  # secret until the draw has run
    readonly_fields = [f.name for f in Draw._meta.fields if f.name != "seed_hex"]


@admin.register(Activation)
class ActivationAdmin(admin.ModelAdmin):
    list_display = ["receipt_number", "draw", "member", "channel", "tickets", "activated_at"]
    list_select_related = ["draw", "member"]
    readonly_fields = [f.name for f in Activation._meta.fields]


@admin.register(DeviceToken)
class DeviceTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "property", "key_prefix", "is_active", "created_at", "last_used_at"]
    list_filter = ["property", "is_active"]
    fields = ["property", "name", "is_active", "key_prefix", "created_at", "last_used_at"]
    readonly_fields = ["key_prefix", "created_at", "last_used_at"]

    def save_model(self, request, obj, form, change):
        actor = Actor.from_request(request)
        if change:
            obj.save(update_fields=["is_active", "name"])
            audit_log(actor=actor, action="device.changed", obj=obj, data={"is_active": obj.is_active})
            return
        device, token = device_token_create(actor=actor, prop=obj.property, name=obj.name)
        obj.pk, obj.key_prefix, obj.key_sha256 = device.pk, device.key_prefix, device.key_sha256
        messages.warning(request, f"Token for {device}: {token}  (copy it now: it is not shown again)")
