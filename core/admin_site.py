"""The admin site: every ModelAdmin registered on it, ours, Django's or a library's, keeps the
secret fields of core.secrets out of its lists, filters, searches, sorting and forms.

Django's admin lets any local field be filtered from the address (`?seed_hex__startswith=a`)
even when the admin shows it nowhere: with one request per guessed character, a filter is a
way to read the field. So the site wraps each registered admin class in SecretGuard, which
refuses such a lookup (400), leaves secret fields out of search, list columns, list filters,
sorting and the date hierarchy, and out of the change page unless core.secrets says the object
reveals them (a draw's seed once it is complete). Inlines are guarded the same way.

settings.INSTALLED_APPS names AdminConfig below in place of "django.contrib.admin".
"""

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig as DjangoAdminConfig

from core.secrets import hidden_names, touches_secret


def _without(items, hidden, model) -> list:
    """`items` (field names, or tuples of them on one line) less those that read a secret."""
    kept = []
    for item in items:
        if isinstance(item, list | tuple):
            line = type(item)(name for name in item if not _reads(name, hidden, model))
            if line:
                kept.append(line)
        elif not _reads(item, hidden, model):
            kept.append(item)
    return kept


def _reads(item, hidden, model) -> bool:
    return isinstance(item, str) and (item in hidden or (model is not None and touches_secret(model, item)))


class SecretFormGuard:
    """The change page of a model admin or an inline: secret fields are neither form fields nor
    read-only values, unless revealed for the object shown."""

    def _hidden(self, obj) -> frozenset[str]:
        return hidden_names(self.model, obj)

    def get_exclude(self, request, obj=None):
        hidden = self._hidden(obj)
        return (
            [*(super().get_exclude(request, obj) or ()), *sorted(hidden)]
            if hidden
            else super().get_exclude(request, obj)
        )

    def get_fields(self, request, obj=None):
        return _without(super().get_fields(request, obj), self._hidden(obj), None)

    def get_readonly_fields(self, request, obj=None):
        return _without(super().get_readonly_fields(request, obj), self._hidden(obj), None)

    def get_fieldsets(self, request, obj=None):
        hidden = self._hidden(obj)
        fieldsets = []
        for name, options in super().get_fieldsets(request, obj):
            fieldsets.append((name, {**options, "fields": _without(options.get("fields", ()), hidden, None)}))
        return fieldsets


class SecretInlineGuard(SecretFormGuard):
    def _hidden(self, obj) -> frozenset[str]:
        # An inline's `obj` is the parent object, not its rows: nothing is revealed in one.
        return hidden_names(self.model)


class SecretGuard(SecretFormGuard):
    """What the admin's change list may read: no lookup, search, column, filter, sort or date
    hierarchy over a secret field, whatever the admin class declares or the address asks."""

    def __init__(self, model, admin_site):
        super().__init__(model, admin_site)
        if self.date_hierarchy and touches_secret(model, self.date_hierarchy):
            self.date_hierarchy = None
        if any(touches_secret(model, name) for name in self.list_editable):
            self.list_editable = [name for name in self.list_editable if not touches_secret(model, name)]

    def lookup_allowed(self, lookup, value, request=None):
        if touches_secret(self.model, lookup):
            return False  # the change list answers 400 Bad Request
        return super().lookup_allowed(lookup, value, request)

    def get_search_fields(self, request):
        return [name for name in super().get_search_fields(request) if not touches_secret(self.model, name)]

    def get_list_display(self, request):
        return _without(super().get_list_display(request), self._hidden(None), self.model)

    def get_list_display_links(self, request, list_display):
        links = super().get_list_display_links(request, list_display)
        return links if links is None else [name for name in links if name in list_display]

    def get_list_filter(self, request):
        kept = []
        for item in super().get_list_filter(request):
            name = item[0] if isinstance(item, list | tuple) else item
            if not (isinstance(name, str) and touches_secret(self.model, name)):
                kept.append(item)
        return kept

    def get_sortable_by(self, request):
        return [name for name in super().get_sortable_by(request) if not self._sorts_by_secret(name)]

    def _sorts_by_secret(self, name) -> bool:
        if not isinstance(name, str):
            return False
        if touches_secret(self.model, name):
            return True
        attribute = getattr(self, name, None) or getattr(self.model, name, None)
        order_field = getattr(attribute, "admin_order_field", None)
        return touches_secret(self.model, getattr(order_field, "name", order_field))

    def get_ordering(self, request):
        return [name for name in super().get_ordering(request) or () if not touches_secret(self.model, name)]

    def get_inlines(self, request, obj):
        return [guarded_inline(inline) for inline in super().get_inlines(request, obj)]


def guarded_inline(inline: type) -> type:
    if issubclass(inline, SecretInlineGuard):
        return inline
    return type(inline.__name__, (SecretInlineGuard, inline), {"__module__": inline.__module__})


def guarded(admin_class: type) -> type:
    if issubclass(admin_class, SecretGuard):
        return admin_class
    return type(
        admin_class.__name__,
        (SecretGuard, admin_class),
        {"__module__": admin_class.__module__, "__doc__": admin_class.__doc__},
    )


class GuardedAdminSite(admin.AdminSite):
    """The default admin site, guarding every model admin registered on it."""

    def register(self, model_or_iterable, admin_class=None, **options):
        super().register(model_or_iterable, guarded(admin_class or admin.ModelAdmin), **options)


class AdminConfig(DjangoAdminConfig):
    default_site = "core.admin_site.GuardedAdminSite"
